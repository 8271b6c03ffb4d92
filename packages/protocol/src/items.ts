/**
 * Inbound items and local guidance (seed 003 "Inbound items", "Local guidance"): the closed shapes
 * a host receives from read_inbox, read_event, push notifications and webhooks.
 */
import * as z from "zod";
import { AnswerContentSchema, MessageContentSchema, RequestedSchemaSchema } from "./content.js";
import { FIREWALL_REFUSALS } from "./failures.js";
import { isAgentAddress } from "./names.js";

const agentAddress = z.string().refine(isAgentAddress, "must be an agent: address");
const groupAddress = z.string().regex(/^group:/, "must be a group: address");

export const DirectMessageSchema = z.object({
  kind: z.literal("direct"),
  postId: z.string(),
  address: agentAddress,
  sender: agentAddress,
  content: MessageContentSchema,
});

export const GroupMessageSchema = z.object({
  kind: z.literal("group"),
  postId: z.string(),
  address: groupAddress,
  sender: agentAddress,
  members: z.array(agentAddress).min(3),
  content: MessageContentSchema,
});

export const InboundMessageSchema = z.discriminatedUnion("kind", [DirectMessageSchema, GroupMessageSchema]);

export const WithheldSchema = z.object({
  kind: z.literal("withheld"),
  checkId: z.string(),
  reason: z.enum(FIREWALL_REFUSALS),
});

export const CollectiveMemberOutcomeSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("answered"), content: AnswerContentSchema }),
  z.object({ kind: z.literal("declined") }),
  z.object({ kind: z.literal("invalid"), reason: z.string() }),
  z.object({ kind: z.literal("no-answer") }),
  WithheldSchema,
]);

export const MemberOutcomeSchema = z.object({ member: agentAddress, outcome: CollectiveMemberOutcomeSchema });

export const MulticastItemSchema = z.object({ kind: z.literal("multicast"), message: InboundMessageSchema });
export const CollectiveRequestItemSchema = z.object({
  kind: z.literal("collectiveRequest"),
  op: z.enum(["gather", "all_gather"]),
  id: z.string(),
  postId: z.string(),
  from: agentAddress,
  to: z.string(),
  question: z.string(),
  requestedSchema: RequestedSchemaSchema,
  deadlineAt: z.number().int(),
});
export const CollectiveResultItemSchema = z.object({
  kind: z.literal("collectiveResult"),
  op: z.enum(["gather", "all_gather"]),
  id: z.string(),
  to: z.string(),
  question: z.union([z.string(), WithheldSchema]),
  outcomes: z.array(MemberOutcomeSchema).min(1),
});
export const OperationFailedItemSchema = z.object({
  kind: z.literal("operationFailed"),
  id: z.string(),
  to: z.string(),
  error: z.string(),
});

export const InboundItemSchema = z.discriminatedUnion("kind", [
  MulticastItemSchema,
  CollectiveRequestItemSchema,
  CollectiveResultItemSchema,
  OperationFailedItemSchema,
]);

export type DirectMessage = z.infer<typeof DirectMessageSchema>;
export type GroupMessage = z.infer<typeof GroupMessageSchema>;
export type InboundMessage = z.infer<typeof InboundMessageSchema>;
export type Withheld = z.infer<typeof WithheldSchema>;
export type CollectiveMemberOutcome = z.infer<typeof CollectiveMemberOutcomeSchema>;
export type MemberOutcome = z.infer<typeof MemberOutcomeSchema>;
export type InboundItem = z.infer<typeof InboundItemSchema>;
export type InboundItemKind = InboundItem["kind"];

const GuidanceSubjectSchema = z.object({
  id: z.string(),
  sender: z.string(),
  recipients: z.array(z.string()),
  text: z.string(),
});

const GuidanceInstructionSchema = z.union([
  z.object({
    middlewareId: z.string(),
    ruleId: z.string(),
    expectation: z.enum(["required", "permitted", "wait", "none"]),
    subjects: z.array(z.string()),
    instruction: z.string(),
  }),
  z.object({
    middlewareId: z.string(),
    ruleId: z.string(),
    uncertain: z.object({ choice: z.string(), probability: z.number() }),
    instruction: z.string(),
  }),
]);

export const CheckedGuidanceSchema = z.object({
  checkId: z.string(),
  subjects: z.array(GuidanceSubjectSchema),
  instructions: z.array(GuidanceInstructionSchema),
});

export const LocalGuidanceSchema = z.union([
  CheckedGuidanceSchema,
  z.object({
    question: CheckedGuidanceSchema.optional(),
    answers: z.array(CheckedGuidanceSchema.extend({ member: z.string() })),
  }),
]);

export type CheckedGuidance = z.infer<typeof CheckedGuidanceSchema>;
export type LocalGuidance = z.infer<typeof LocalGuidanceSchema>;

/** One page entry of read_inbox. */
export const InboxEntrySchema = z.object({
  deliveryToken: z.string(),
  item: InboundItemSchema,
  guidance: LocalGuidanceSchema.optional(),
});
export type InboxEntry = z.infer<typeof InboxEntrySchema>;

/**
 * The closed failure vocabularies of seed 003 and how they travel over MCP (SPEC §6): a refused
 * send is JSON-RPC error -32030 whose data is one of the shapes below.
 */
import * as z from "zod";

/** JSON-RPC error code of a refused send, acknowledgment or event lookup. */
export const SEND_REFUSED_CODE = -32030;

export const SEND_ERROR_REASONS = [
  "invalid-address",
  "unknown-agent",
  "membership-invalid",
  "content-invalid",
  "not-registered",
  "version-mismatch",
  "certification-unavailable",
  "persistence-failed",
  "network-unavailable",
  "delivery-pending",
  "outcome-unknown",
] as const;
export type SendErrorReason = (typeof SEND_ERROR_REASONS)[number];
export const SendErrorReasonSchema = z.enum(SEND_ERROR_REASONS);

/** Reasons that mean the daemon may have bound or sent the post; they never go to the inbox. */
export const AMBIGUOUS_SEND_REASONS: readonly SendErrorReason[] = ["delivery-pending", "outcome-unknown"];

/** A member a collective could not reach: the bare SendError reason, and what happened in `detail`. */
export const UnreachableMemberSchema = z.object({
  member: z.string(),
  reason: SendErrorReasonSchema,
  detail: z.string().optional(),
});

export const CollectiveFailureSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("members-unreachable"), members: z.array(UnreachableMemberSchema).min(1) }),
  z.object({ kind: z.literal("no-open-request") }),
  z.object({ kind: z.literal("several-open-requests"), requests: z.array(z.string()).min(2) }),
]);
export type CollectiveFailure = z.infer<typeof CollectiveFailureSchema>;

export const FIREWALL_REFUSALS = ["refused", "held", "unavailable"] as const;
export type FirewallRefusal = (typeof FIREWALL_REFUSALS)[number];

export const SendErrorDataSchema = z.object({ reason: SendErrorReasonSchema, detail: z.string().optional() });
export const CollectiveErrorDataSchema = z.object({
  reason: z.literal("collective-failed"),
  id: z.string().optional(),
  failure: CollectiveFailureSchema,
});
export const FirewallErrorDataSchema = z.object({
  reason: z.literal("firewall-refused"),
  checkId: z.string(),
  refusal: z.enum(FIREWALL_REFUSALS),
  feedback: z.string(),
});
export const SendRefusalDataSchema = z.union([SendErrorDataSchema, CollectiveErrorDataSchema, FirewallErrorDataSchema]);
export type SendErrorData = z.infer<typeof SendErrorDataSchema>;
export type CollectiveErrorData = z.infer<typeof CollectiveErrorDataSchema>;
export type FirewallErrorData = z.infer<typeof FirewallErrorDataSchema>;
export type SendRefusalData = z.infer<typeof SendRefusalDataSchema>;

/** Failures of acknowledge_delivery and read_event. */
export const LookupErrorDataSchema = z.object({
  reason: z.enum(["unknown-delivery", "unknown-event"]),
  detail: z.string().optional(),
});
export type LookupErrorData = z.infer<typeof LookupErrorDataSchema>;

/** A collective failure as callers may hold it: every field read-only. */
export type ReadonlyCollectiveFailure =
  | {
      readonly kind: "members-unreachable";
      readonly members: readonly { readonly member: string; readonly reason: string; readonly detail?: string }[];
    }
  | { readonly kind: "no-open-request" }
  | { readonly kind: "several-open-requests"; readonly requests: readonly string[] };

/** One readable sentence for a collective failure, as an operationFailed item carries it. */
export function describeCollectiveFailure(failure: ReadonlyCollectiveFailure): string {
  switch (failure.kind) {
    case "members-unreachable":
      return `members unreachable: ${failure.members
        .map((m) => `${m.member} (${m.detail === undefined ? m.reason : `${m.reason}: ${m.detail}`})`)
        .join(", ")}`;
    case "no-open-request":
      return "no request is open in this conversation to answer";
    case "several-open-requests":
      return `several requests are open in this conversation (${failure.requests.join(", ")}); the answer is ambiguous`;
  }
}

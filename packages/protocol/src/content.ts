/**
 * Content: the closed list of parts a record certifies (SPEC §5). A text part, data parts (JSON
 * values with text keys), and at most one collective part: the multicast marker, a gather or
 * all_gather request, an answer, or an all_gather close.
 */
import * as z from "zod";
import { encodeCanonical } from "./cbor.js";
import { checkRequestedSchema, type AnswerContent, type JsonValue, type RequestedSchema } from "./form.js";
import { isId } from "./ids.js";
import { isAgentName } from "./names.js";

/** Maximum certified content per record: 1 MiB of canonical CBOR. */
export const MAX_CONTENT_BYTES = 1024 * 1024;
/** Collective deadlines are whole seconds from now, 1 to 2,592,000 (30 days). */
export const MAX_DEADLINE_SECONDS = 2_592_000;

const collectiveId = z.string().refine((v) => isId("collective", v), "must be a canonical col_ id");
const recordHash = z.string().refine((v) => isId("record", v), "must be a canonical rec_ id");
const nonce = z.string().regex(/^[A-Za-z0-9_-]{43}$/, "must be 43 base64url characters");
const agentName = z.string().refine(isAgentName, "must be an agent name");

export const JsonValueSchema: z.ZodType<JsonValue> = z.json();

export const RequestedSchemaSchema = z.custom<RequestedSchema>(
  (value) => checkRequestedSchema(value).ok,
  "must be a form-mode requestedSchema",
);

export const AnswerContentSchema = z.record(
  z.string(),
  z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]),
) as z.ZodType<AnswerContent>;

export const TextPartSchema = z.object({ type: z.literal("text"), text: z.string() });
export const DataPartSchema = z.object({ type: z.literal("data"), value: JsonValueSchema });

export const MulticastPartSchema = z.object({ type: z.literal("collective"), op: z.literal("multicast") });
export const RequestPartSchema = z.object({
  type: z.literal("collective"),
  op: z.enum(["gather", "all_gather"]),
  id: collectiveId,
  nonce,
  deadlineAt: z.number().int().positive(),
  requestedSchema: RequestedSchemaSchema,
});
export const AnswerPartSchema = z.object({
  type: z.literal("collective"),
  op: z.literal("answer"),
  id: collectiveId,
  response: z.discriminatedUnion("action", [
    z.object({ action: z.literal("accept"), content: AnswerContentSchema }),
    z.object({ action: z.literal("decline") }),
  ]),
});
/** The all_gather close: for each member, the record hash of its counted answer, or null. */
export const ClosePartSchema = z.object({
  type: z.literal("collective"),
  op: z.literal("close"),
  id: collectiveId,
  answers: z.array(z.object({ member: agentName, answer: recordHash.nullable() })).min(1),
});
export const CollectivePartSchema = z.discriminatedUnion("op", [
  MulticastPartSchema,
  RequestPartSchema,
  AnswerPartSchema,
  ClosePartSchema,
]);

export type TextPart = z.infer<typeof TextPartSchema>;
export type DataPart = z.infer<typeof DataPartSchema>;
export type MulticastPart = z.infer<typeof MulticastPartSchema>;
export type RequestPart = z.infer<typeof RequestPartSchema>;
export type AnswerPart = z.infer<typeof AnswerPartSchema>;
export type ClosePart = z.infer<typeof ClosePartSchema>;
export type CollectivePart = z.infer<typeof CollectivePartSchema>;
export type ContentPart = TextPart | DataPart | CollectivePart;
/** What a record certifies: an ordered, closed list of parts. */
export type Content = readonly ContentPart[];
/** Content as an inbound message carries it: the certified parts without the collective part. */
export type MessageContent = readonly (TextPart | DataPart)[];

export const MessagePartSchema = z.discriminatedUnion("type", [TextPartSchema, DataPartSchema]);
export const MessageContentSchema = z.array(MessagePartSchema);

export type ContentRead =
  | {
      readonly ok: true;
      readonly message: MessageContent;
      readonly collective: CollectivePart | undefined;
    }
  | { readonly ok: false; readonly reason: string };

/**
 * Splits certified content into its message parts and its one collective part. A duplicated or
 * malformed collective part, or an unknown part type, makes the content unreadable.
 */
export function readContent(content: unknown): ContentRead {
  if (!Array.isArray(content)) return { ok: false, reason: "content is not a list" };
  const message: (TextPart | DataPart)[] = [];
  let collective: CollectivePart | undefined;
  for (const [i, part] of content.entries()) {
    const type = (part as { type?: unknown } | null)?.type;
    if (type === "collective") {
      if (collective !== undefined) return { ok: false, reason: "the collective part is duplicated" };
      const parsed = CollectivePartSchema.safeParse(part);
      if (!parsed.success) return { ok: false, reason: `malformed collective part: ${z.prettifyError(parsed.error)}` };
      collective = parsed.data;
      continue;
    }
    const parsed = MessagePartSchema.safeParse(part);
    if (!parsed.success) return { ok: false, reason: `part ${i} is malformed: ${z.prettifyError(parsed.error)}` };
    message.push(parsed.data);
  }
  return { ok: true, message, collective };
}

/**
 * The canonical encoding of content, within the size limit, or a reason it cannot be certified. A
 * send keeps the encoding: it is what its intent binds and what its record carries.
 */
export function checkContentSize(content: Content): { ok: true; encoded: Uint8Array } | { ok: false; reason: string } {
  let encoded: Uint8Array;
  try {
    encoded = encodeCanonical(content);
  } catch (cause) {
    return { ok: false, reason: (cause as Error).message };
  }
  const bytes = encoded.byteLength;
  if (bytes > MAX_CONTENT_BYTES) {
    return { ok: false, reason: `content is ${bytes} bytes; the limit is ${MAX_CONTENT_BYTES}` };
  }
  return { ok: true, encoded };
}

/** The text of the first text part, or an empty string. */
export function textOf(content: readonly ContentPart[]): string {
  return content.find((p): p is TextPart => p.type === "text")?.text ?? "";
}

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
const NONCE = /^[A-Za-z0-9_-]{43}$/;
const nonce = z.string().regex(NONCE, "must be 43 base64url characters");
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
      const hot = hotCollectivePart(part as Record<string, unknown>);
      if (hot !== undefined) {
        collective = hot;
        continue;
      }
      const parsed = CollectivePartSchema.safeParse(part);
      if (!parsed.success) return { ok: false, reason: `malformed collective part: ${z.prettifyError(parsed.error)}` };
      collective = parsed.data;
      continue;
    }
    if (type === "text" && typeof (part as { text?: unknown }).text === "string") {
      message.push({ type: "text", text: (part as TextPart).text });
      continue;
    }
    const parsed = MessagePartSchema.safeParse(part);
    if (!parsed.success) return { ok: false, reason: `part ${i} is malformed: ${z.prettifyError(parsed.error)}` };
    message.push(parsed.data);
  }
  return { ok: true, message, collective };
}

/**
 * The collective parts checked by hand, since every member reads every record's content (a
 * 32-member all_gather spent 4% of its daemons' CPU in zod here): the multicast marker, an answer,
 * a close and a request, built as their schemas would return them (unknown keys dropped). Anything
 * else, or anything in doubt, is undefined and goes to the schemas, which also word the refusals.
 */
function hotCollectivePart(part: Record<string, unknown>): CollectivePart | undefined {
  const { op, id } = part;
  if (op === "multicast") return { type: "collective", op: "multicast" };
  if (typeof id !== "string" || !isId("collective", id)) return undefined;
  if (op === "close") return hotClose(id, part.answers);
  if (op === "gather" || op === "all_gather") return hotRequest(op, id, part);
  if (op === "answer") return hotAnswer(id, part.response);
  return undefined;
}

/** AnswerPartSchema's reading: a decline, or an accept with its content. */
function hotAnswer(id: string, response: unknown): AnswerPart | undefined {
  if (typeof response !== "object" || response === null || Array.isArray(response)) return undefined;
  const { action } = response as Record<string, unknown>;
  if (action === "decline") return { type: "collective", op: "answer", id, response: { action: "decline" } };
  if (action !== "accept") return undefined;
  const content = hotAnswerContent((response as Record<string, unknown>).content);
  return content === undefined ? undefined : { type: "collective", op: "answer", id, response: { action, content } };
}

/** ClosePartSchema's reading: each member's counted answer by record hash, or null. */
function hotClose(id: string, answers: unknown): ClosePart | undefined {
  if (!Array.isArray(answers) || answers.length === 0) return undefined;
  const read: { member: string; answer: string | null }[] = [];
  for (const entry of answers as unknown[]) {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return undefined;
    const { member, answer } = entry as Record<string, unknown>;
    if (typeof member !== "string" || !isAgentName(member)) return undefined;
    if (answer !== null && (typeof answer !== "string" || !isId("record", answer))) return undefined;
    read.push({ member, answer });
  }
  return { type: "collective", op: "close", id, answers: read };
}

/** RequestPartSchema's reading; the requested schema is checked as the schema checks it, and kept as it is. */
function hotRequest(op: "gather" | "all_gather", id: string, part: Record<string, unknown>): RequestPart | undefined {
  const { nonce, deadlineAt, requestedSchema } = part;
  if (typeof nonce !== "string" || !NONCE.test(nonce)) return undefined;
  if (!Number.isSafeInteger(deadlineAt) || (deadlineAt as number) <= 0) return undefined;
  if (!checkRequestedSchema(requestedSchema).ok) return undefined;
  return {
    type: "collective",
    op,
    id,
    nonce,
    deadlineAt: deadlineAt as number,
    requestedSchema: requestedSchema as RequestedSchema,
  };
}

/** AnswerContentSchema's reading of a plain map of strings, finite numbers, booleans and string lists. */
function hotAnswerContent(value: unknown): AnswerContent | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  const content: Record<string, AnswerContent[string]> = {};
  for (const key of Object.keys(value)) {
    if (key === "__proto__") return undefined;
    const field = (value as Record<string, unknown>)[key];
    if (typeof field === "string" || typeof field === "boolean") content[key] = field;
    else if (typeof field === "number" && Number.isFinite(field)) content[key] = field;
    else if (Array.isArray(field) && field.every((item) => typeof item === "string")) content[key] = [...field];
    else return undefined;
  }
  return content;
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

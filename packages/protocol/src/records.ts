/**
 * Records: the signed, certified units of a conversation (SPEC §5). A record is a canonical CBOR
 * map; its hash is SHA-256 of the exact bytes; the author's action signature covers
 * "social-harness/record/v1\0" ‖ bytes. Reading a record verifies the bytes as they arrived and
 * only then projects the fields this build knows, dropping any others (seed 002).
 */
import * as z from "zod";
import { decodeCanonical, encodeCanonical } from "./cbor.js";
import { Preencoded, writeCanonical } from "./cbor-write.js";
import type { ContentPart } from "./content.js";
import { isId, recordHashOf, type PostId, type RecordHash } from "./ids.js";
import { isAgentName, membersOfConversation, type AgentName, type ConversationKey } from "./names.js";
import { domainMessage, verifySignature } from "./signatures.js";

export const RECORD_VERSION = 1;
export const RECORD_DOMAIN = "social-harness/record/v1";

export const RecordSchema = z.object({
  v: z.literal(RECORD_VERSION),
  kind: z.enum(["post", "genesis"]),
  conv: z.string().refine((c) => membersOfConversation(c) !== undefined, "must be a conversation key"),
  prev: z
    .string()
    .refine((h) => isId("record", h), "must be a record hash")
    .nullable(),
  author: z.string().refine(isAgentName, "must be an agent name"),
  postId: z.string().refine((p) => isId("post", p), "must be a PostId"),
  at: z.number().int().nonnegative(),
  content: z.array(z.looseObject({ type: z.string() })),
  members: z.array(z.string().refine(isAgentName)).optional(),
});

/** A record as this build reads it. Content parts are checked further by readContent. */
export type RecordFields = z.infer<typeof RecordSchema>;

export interface RecordDraft {
  readonly kind: "post" | "genesis";
  readonly conv: ConversationKey;
  readonly prev: RecordHash | null;
  readonly author: AgentName;
  readonly postId: PostId;
  readonly at: number;
  readonly content: readonly ContentPart[];
  readonly members?: readonly AgentName[];
}

/** Encodes a record draft as canonical CBOR. */
export function encodeRecord(draft: RecordDraft): Uint8Array {
  return encodeCanonical(fieldsOfDraft(draft));
}

/**
 * encodeCanonical(fields) when `contentBytes` is the canonical encoding of `fields.content` (as a
 * strict decode of them proves): the content is copied, not encoded again.
 */
export function encodeFieldsWithContent(fields: RecordFields, contentBytes: Uint8Array): Uint8Array {
  return writeCanonical({ ...fields, content: new Preencoded(contentBytes) }) ?? encodeCanonical(fields);
}

/**
 * A draft's fields as readRecord returns them for its encoding, key for key: the author of a
 * record it has just encoded needs not decode the bytes again to know them.
 */
export function fieldsOfDraft(draft: RecordDraft): RecordFields {
  const fields: RecordFields = {
    v: RECORD_VERSION,
    kind: draft.kind,
    conv: draft.conv,
    prev: draft.prev,
    author: draft.author,
    postId: draft.postId,
    at: draft.at,
    // The same parts, typed readonly and narrower than the schema's open part type.
    content: draft.content as unknown as RecordFields["content"],
  };
  if (draft.members !== undefined) fields.members = [...draft.members];
  return fields;
}

/** The bytes an action signature covers. */
export function actionMessage(recordBytes: Uint8Array): Uint8Array {
  return domainMessage(RECORD_DOMAIN, recordBytes);
}

export type RecordRead =
  | { readonly ok: true; readonly record: RecordFields; readonly hash: RecordHash }
  | { readonly ok: false; readonly reason: string };

const isPart = (p: unknown) =>
  typeof p === "object" && p !== null && !Array.isArray(p) && typeof (p as { type?: unknown }).type === "string";

/**
 * RecordSchema's rules by hand, for the records every post carries: the same checks and the same
 * output (the known fields only). undefined sends the value to the schema, which explains.
 */
function recordFieldsOf(value: unknown): RecordFields | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const { v, kind, conv, prev, author, postId, at, content, members } = value as Record<string, unknown>;
  if (v !== RECORD_VERSION || (kind !== "post" && kind !== "genesis")) return undefined;
  if (typeof conv !== "string" || membersOfConversation(conv) === undefined) return undefined;
  if (prev !== null && !isId("record", prev)) return undefined;
  if (!isAgentName(author) || !isId("post", postId)) return undefined;
  if (!Number.isSafeInteger(at) || (at as number) < 0) return undefined;
  if (!Array.isArray(content) || !content.every(isPart)) return undefined;
  if (members !== undefined && !(Array.isArray(members) && members.every(isAgentName))) return undefined;
  const fields: RecordFields = {
    v: RECORD_VERSION,
    kind,
    conv,
    prev,
    author,
    postId,
    at: at as number,
    content: content as RecordFields["content"],
  };
  if (members !== undefined) fields.members = members;
  return fields;
}

/**
 * Decodes record bytes: canonical CBOR, version 1, the known fields well-formed. For a genesis,
 * the member list must be exactly the group's; for a post, no member list.
 */
export function readRecord(bytes: Uint8Array): RecordRead {
  const decoded = decodeCanonical(bytes);
  if (!decoded.ok) return { ok: false, reason: `not canonical CBOR: ${decoded.reason}` };
  const version = (decoded.value as { v?: unknown } | null)?.v;
  if (version !== RECORD_VERSION) return { ok: false, reason: `unsupported record version ${String(version)}` };
  let record = recordFieldsOf(decoded.value);
  if (record === undefined) {
    const parsed = RecordSchema.safeParse(decoded.value);
    if (!parsed.success) return { ok: false, reason: `malformed record: ${z.prettifyError(parsed.error)}` };
    record = parsed.data;
  }
  const members = membersOfConversation(record.conv) ?? [];
  if (!members.includes(record.author))
    return { ok: false, reason: `${record.author} is not a member of ${record.conv}` };
  if (record.kind === "genesis") {
    if (!record.conv.startsWith("group:")) return { ok: false, reason: "a genesis opens only a group conversation" };
    if (record.prev !== null) return { ok: false, reason: "a genesis has no previous record" };
    if (record.members?.join(",") !== members.join(","))
      return { ok: false, reason: "genesis members differ from the group" };
    if (record.content.length !== 0) return { ok: false, reason: "a genesis has no content" };
  } else if (record.members !== undefined) {
    return { ok: false, reason: "a post carries no member list" };
  }
  return { ok: true, record, hash: recordHashOf(bytes) };
}

/** Verifies an action signature over the bytes exactly as they arrived. */
export function verifyActionSignature(publicKey: Uint8Array, recordBytes: Uint8Array, signature: Uint8Array): boolean {
  return verifySignature(publicKey, actionMessage(recordBytes), signature);
}

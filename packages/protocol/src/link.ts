/**
 * The router link: CBOR frames between a daemon and its router over one WebSocket (binary
 * messages). The router opens with a challenge; the daemon answers with its name, public key and
 * a signature over the challenge (and, at its first registration with a router that admits by
 * token, a registration token). Requests carry an integer id echoed by their answer.
 */
import * as z from "zod";
import { decodeStrict, encodeCanonical } from "./cbor.js";
import { Preencoded, writeCanonical } from "./cbor-write.js";
import { isId } from "./ids.js";
import { isAgentName } from "./names.js";
import { domainMessage } from "./signatures.js";
import { MAX_TRACEPARENT_LENGTH, TRACEPARENT_PATTERN } from "./tracing.js";

export const LINK_PROTOCOL = 1;
export const LINK_AUTH_DOMAIN = "social-harness/link/v1";
/** A frame carries at most one record of at most 1 MiB of content plus its envelope. */
export const MAX_FRAME_BYTES = 2 * 1024 * 1024;

const bytes = z.custom<Uint8Array>((value) => value instanceof Uint8Array, "must be bytes");
const name = z.string().refine(isAgentName, "must be an agent name");
const hash = z.string().refine((h) => isId("record", h), "must be a record hash");
const requestId = z.number().int().nonnegative();
const seq = z.number().int().positive();
/** The W3C trace context of the hop that sent the frame (tracing.ts); never part of a record. */
const traceparent = z.string().max(MAX_TRACEPARENT_LENGTH).regex(TRACEPARENT_PATTERN).optional();

export const SignatureEntrySchema = z.object({ signer: name, signature: bytes });
export type SignatureEntry = z.infer<typeof SignatureEntrySchema>;

/** The stored form of a record's signatures: one canonical CBOR list of {signer, signature}. */
export function encodeSignatureList(signatures: readonly SignatureEntry[]): Uint8Array {
  return encodeCanonical(signatures.map((s) => ({ signer: s.signer, signature: s.signature })));
}

/** Reads a stored signature list back; its writer encoded it canonically, so a strict read suffices. */
export function decodeSignatureList(bytes: Uint8Array): SignatureEntry[] {
  const decoded = decodeStrict(bytes);
  if (!decoded.ok) throw new Error(`stored signatures are corrupt: ${decoded.reason}`);
  return decoded.value as SignatureEntry[];
}

/** Why the router refuses a link or a proposal. */
export const LinkRefusalSchema = z.enum([
  "version-mismatch",
  "name-taken",
  "invalid-key",
  "bad-signature",
  "not-authenticated",
  "not-admitted",
  "malformed",
  "unknown-agent",
  "not-member",
  "no-conversation",
  "certification-unavailable",
  "content-invalid",
  "internal",
]);
export type LinkRefusal = z.infer<typeof LinkRefusalSchema>;

/** Why a router's admission refused to register a new name (link-error `not-admitted`). */
export const AdmissionRefusalSchema = z.enum([
  /** The router admits by token and the daemon presented none. */
  "token-required",
  /** The router never issued the token presented. */
  "token-unknown",
  "token-expired",
  /** The token registered a name already; each token registers once. */
  "token-used",
  /** The token was issued for another agent name. */
  "token-for-another-name",
  /** The router admits by key and this name and key are not on its list. */
  "key-not-allowed",
]);
export type AdmissionRefusal = z.infer<typeof AdmissionRefusalSchema>;

/** A registration token: `sh_reg_` and 43 base64url characters (32 random bytes). */
export const REGISTRATION_TOKEN_PATTERN = /^sh_reg_[A-Za-z0-9_-]{43}$/;

export const ClientFrameSchema = z.discriminatedUnion("t", [
  z.object({
    t: z.literal("authenticate"),
    protocol: z.number().int(),
    name,
    publicKey: bytes,
    signature: bytes,
    /** Presented for a first registration; a router ignores it for a name already registered. */
    registrationToken: z.string().max(256).optional(),
    /**
     * false: the daemon stores its own posts from their certificates, so the router does not push
     * a post back to the author it answered (absent or true: every member gets every post).
     */
    echoOwn: z.boolean().optional(),
  }),
  z.object({ t: z.literal("sync"), cursors: z.record(z.string(), z.number().int().nonnegative()) }),
  z.object({ t: z.literal("resolve"), id: requestId, names: z.array(z.string()).max(64) }),
  z.object({ t: z.literal("propose"), id: requestId, record: bytes, signature: bytes, traceparent }),
  z.object({ t: z.literal("open-group"), id: requestId, record: bytes, signature: bytes }),
  z.object({ t: z.literal("cosign"), request: z.string(), signature: bytes }),
  z.object({ t: z.literal("cosign-refused"), request: z.string(), reason: z.string() }),
  z.object({ t: z.literal("ack"), conv: z.string(), seq }),
  /** A pushed record the daemon processed without storing it (refused, or ahead of a gap). */
  z.object({ t: z.literal("skip"), conv: z.string(), seq, reason: z.string().max(500) }),
]);
export type ClientFrame = z.infer<typeof ClientFrameSchema>;

export const ResolvedAgentSchema = z.union([
  z.object({ name: z.string(), publicKey: bytes }),
  z.object({ name: z.string(), error: z.enum(["unknown-agent", "invalid-name"]) }),
]);
export type ResolvedAgent = z.infer<typeof ResolvedAgentSchema>;

export const RecordFrameSchema = z.object({
  t: z.literal("record"),
  conv: z.string(),
  seq,
  record: bytes,
  signatures: z.array(SignatureEntrySchema).min(1),
  certificate: bytes,
  traceparent,
});
export type RecordFrame = z.infer<typeof RecordFrameSchema>;

export const RouterFrameSchema = z.discriminatedUnion("t", [
  z.object({ t: z.literal("challenge"), protocol: z.number().int(), nonce: bytes, routerKey: bytes }),
  z.object({ t: z.literal("authenticated"), name }),
  z.object({
    t: z.literal("link-error"),
    reason: LinkRefusalSchema,
    detail: z.string(),
    admission: AdmissionRefusalSchema.optional(),
  }),
  z.object({ t: z.literal("resolved"), id: requestId, agents: z.array(ResolvedAgentSchema) }),
  z.object({
    t: z.literal("certified"),
    id: requestId,
    conv: z.string(),
    seq,
    record: hash,
    certificate: bytes,
    /** The record already certified under this PostId, when it differs from the proposal. */
    stored: z.object({ record: bytes, signatures: z.array(SignatureEntrySchema).min(1) }).optional(),
  }),
  z.object({ t: z.literal("head-moved"), id: requestId, conv: z.string(), head: hash.nullable() }),
  z.object({
    t: z.literal("refused"),
    id: requestId,
    reason: LinkRefusalSchema,
    detail: z.string(),
    members: z.array(z.object({ name: z.string(), reason: z.string() })).optional(),
  }),
  z.object({ t: z.literal("cosign-request"), request: z.string(), record: bytes }),
  RecordFrameSchema,
  z.object({ t: z.literal("synced") }),
]);
export type RouterFrame = z.infer<typeof RouterFrameSchema>;

export function encodeFrame(frame: ClientFrame | RouterFrame): Uint8Array {
  return encodeCanonical(frame);
}

/** A certified record as a router stores it: the signature list in its stored form. */
export interface StoredRecordParts {
  readonly conv: string;
  readonly seq: number;
  readonly bytes: Uint8Array;
  /** encodeSignatureList's bytes. */
  readonly signatures: Uint8Array;
  readonly certificate: Uint8Array;
}

/**
 * The record frame that pushes a stored record: the same bytes as encodeFrame of the frame with
 * its signature list decoded, but the list, stored as its canonical encoding, is written in place
 * instead of being decoded and encoded again, and the byte strings are not copied first.
 */
export function encodeStoredRecordFrame(stored: StoredRecordParts, traceparent?: string): Uint8Array {
  const frame = {
    t: "record" as const,
    conv: stored.conv,
    seq: stored.seq,
    record: stored.bytes,
    signatures: new Preencoded(stored.signatures),
    certificate: stored.certificate,
    ...(traceparent === undefined ? {} : { traceparent }),
  };
  return writeCanonical(frame) ?? encodeFrame({ ...frame, signatures: decodeSignatureList(stored.signatures) });
}

export type FrameRead<T> = { ok: true; frame: T } | { ok: false; reason: string };

const isBytes = (v: unknown): v is Uint8Array => v instanceof Uint8Array;
const isCount = (v: unknown, min: number): v is number => Number.isSafeInteger(v) && (v as number) >= min;
/** An absent traceparent, or one the schema would accept. */
const isTraceparent = (v: unknown): v is string | undefined =>
  v === undefined || (typeof v === "string" && v.length <= MAX_TRACEPARENT_LENGTH && TRACEPARENT_PATTERN.test(v));

/**
 * The frames of every post (propose, ack; record, certified) checked by hand: the same rules as
 * their schemas, the same output (only the known keys). Anything else, or anything these refuse,
 * goes to the schema, which decides and explains.
 */
function hotClientFrame(v: Record<string, unknown>): ClientFrame | undefined {
  if (
    v.t === "propose" &&
    isCount(v.id, 0) &&
    isBytes(v.record) &&
    isBytes(v.signature) &&
    isTraceparent(v.traceparent)
  ) {
    const frame: ClientFrame = { t: "propose", id: v.id, record: v.record, signature: v.signature };
    return v.traceparent === undefined ? frame : { ...frame, traceparent: v.traceparent };
  }
  if (v.t === "ack" && typeof v.conv === "string" && isCount(v.seq, 1)) return { t: "ack", conv: v.conv, seq: v.seq };
  return undefined;
}

function hotRouterFrame(v: Record<string, unknown>): RouterFrame | undefined {
  if (v.t === "record") {
    const { conv, seq, record, signatures, certificate, traceparent } = v;
    if (typeof conv !== "string" || !isCount(seq, 1) || !isBytes(record) || !isBytes(certificate)) return undefined;
    if (!isTraceparent(traceparent)) return undefined;
    if (!Array.isArray(signatures) || signatures.length === 0) return undefined;
    const entries: SignatureEntry[] = [];
    for (const entry of signatures as unknown[]) {
      const { signer, signature } = (entry ?? {}) as Record<string, unknown>;
      if (typeof entry !== "object" || !isAgentName(signer) || !isBytes(signature)) return undefined;
      entries.push({ signer, signature });
    }
    const frame: RecordFrame = { t: "record", conv, seq, record, signatures: entries, certificate };
    return traceparent === undefined ? frame : { ...frame, traceparent };
  }
  if (v.t === "certified" && v.stored === undefined) {
    const { id, conv, seq, record, certificate } = v;
    if (!isCount(id, 0) || typeof conv !== "string" || !isCount(seq, 1) || !isBytes(certificate)) return undefined;
    if (!isId("record", record)) return undefined;
    return { t: "certified", id, conv, seq, record, certificate };
  }
  // Members answering one gather at once race for the group's head: a 32-member all_gather met
  // some 370 of these a round.
  if (v.t === "head-moved") {
    const { id, conv, head } = v;
    if (!isCount(id, 0) || typeof conv !== "string" || !(head === null || isId("record", head))) return undefined;
    return { t: "head-moved", id, conv, head };
  }
  return undefined;
}

function decodeFrame<T>(
  data: Uint8Array,
  schema: z.ZodType<T>,
  hot: (v: Record<string, unknown>) => T | undefined,
): FrameRead<T> {
  const decoded = decodeStrict(data, MAX_FRAME_BYTES);
  if (!decoded.ok) return decoded;
  if (typeof decoded.value === "object" && decoded.value !== null && !Array.isArray(decoded.value)) {
    const frame = hot(decoded.value as Record<string, unknown>);
    if (frame !== undefined) return { ok: true, frame };
  }
  const parsed = schema.safeParse(decoded.value);
  if (!parsed.success) return { ok: false, reason: z.prettifyError(parsed.error) };
  return { ok: true, frame: parsed.data };
}

export const decodeClientFrame = (data: Uint8Array): FrameRead<ClientFrame> =>
  decodeFrame(data, ClientFrameSchema, hotClientFrame);
export const decodeRouterFrame = (data: Uint8Array): FrameRead<RouterFrame> =>
  decodeFrame(data, RouterFrameSchema, hotRouterFrame);

/** The bytes a daemon signs to prove its identity for one link challenge. */
export function linkAuthMessage(nonce: Uint8Array, agent: string): Uint8Array {
  return domainMessage(LINK_AUTH_DOMAIN, nonce, Buffer.from(agent, "utf8"));
}

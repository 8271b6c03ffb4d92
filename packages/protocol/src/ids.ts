/**
 * Opaque identifiers (SPEC §4): a prefix plus 43 characters of canonical unpadded base64url that
 * encode exactly 32 bytes. Validation refuses non-canonical aliases, so an id has one spelling.
 */
import { createHash, hash, randomBytes } from "node:crypto";
import { decodeBase64url, encodeBase64url } from "./base64url.js";

export const ID_PREFIXES = {
  post: "pst_",
  delivery: "dlv_",
  event: "evt_",
  check: "chk_",
  collective: "col_",
  record: "rec_",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/** `pst_` + 43: minted fresh for every send invocation, scoped to its author. */
export type PostId = string;
/** `dlv_` + 43: one inbox item's handle, bound to one immutable payload forever. */
export type DeliveryToken = string;
/** `evt_` + the delivery token's 43 characters. */
export type EventId = string;
/** `col_` + base64url(SHA-256("social-harness/collective\0" ‖ requester ‖ "\0" ‖ nonce)). */
export type CollectiveId = string;
/** `rec_` + base64url(SHA-256(record bytes)). */
export type RecordHash = string;
/** `chk_` + 43: a firewall check. */
export type CheckId = string;

const BODY_LENGTH = 43;

/** True when `value` is `prefix` + the canonical base64url spelling of exactly 32 bytes. */
export function isId(kind: IdKind, value: unknown): value is string {
  if (typeof value !== "string") return false;
  const prefix = ID_PREFIXES[kind];
  if (value.length !== prefix.length + BODY_LENGTH || !value.startsWith(prefix)) return false;
  return CANONICAL_BODY.test(value.slice(prefix.length));
}

/**
 * 43 base64url characters that are the canonical spelling of 32 bytes: 256 bits leave the last
 * character's two low bits zero (values 0, 4, ... 60), so exactly these 16 may end a body.
 */
const CANONICAL_BODY = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

/** The 32 bytes an id encodes, or undefined if it is not a canonical id of that kind. */
export function idBytes(kind: IdKind, value: string): Uint8Array | undefined {
  return isId(kind, value) ? decodeBase64url(value.slice(ID_PREFIXES[kind].length)) : undefined;
}

function idFromBytes(kind: IdKind, bytes: Uint8Array): string {
  return ID_PREFIXES[kind] + encodeBase64url(bytes);
}

/** Ids' random bytes, drawn from the CSPRNG 64 ids at a time (as `crypto.randomUUID` pools its entropy). */
const POOL_IDS = 64;
let pool = new Uint8Array(0);
let poolAt = 0;

/** Mints a random id from 32 cryptographically random bytes, each used for this id alone. */
export function mintId(kind: "post" | "delivery" | "check"): string {
  if (poolAt === pool.length) {
    pool = randomBytes(32 * POOL_IDS);
    poolAt = 0;
  }
  const bytes = pool.subarray(poolAt, poolAt + 32);
  poolAt += 32;
  return idFromBytes(kind, bytes);
}

/** The event id of a delivery token: the same 43 characters behind `evt_` (seed 000). */
export function eventIdOf(token: DeliveryToken): EventId {
  return ID_PREFIXES.event + token.slice(ID_PREFIXES.delivery.length);
}

/** The delivery token an event id names, or undefined when the id is not canonical. */
export function deliveryTokenOf(eventId: string): DeliveryToken | undefined {
  if (!isId("event", eventId)) return undefined;
  return ID_PREFIXES.delivery + eventId.slice(ID_PREFIXES.event.length);
}

/** SHA-256 of the exact record bytes, as a `rec_` id. */
export function recordHashOf(recordBytes: Uint8Array): RecordHash {
  // One-shot: a third of what a Hash object, its digest buffer and a second encoding cost.
  return ID_PREFIXES.record + hash("sha256", recordBytes, "base64url");
}

const COLLECTIVE_DOMAIN = Buffer.from("social-harness/collective\0", "utf8");

/** Derives a CollectiveId from the requester's name and a 32-byte nonce (SPEC §4). */
export function collectiveIdOf(requester: string, nonce: Uint8Array): CollectiveId {
  const digest = createHash("sha256")
    .update(COLLECTIVE_DOMAIN)
    .update(requester, "utf8")
    .update("\0")
    .update(nonce)
    .digest();
  return idFromBytes("collective", digest);
}

/** A fresh 32-byte nonce and the CollectiveId it derives for `requester`. */
export function mintCollectiveId(requester: string): { id: CollectiveId; nonce: string } {
  const nonce = randomBytes(32);
  return { id: collectiveIdOf(requester, nonce), nonce: encodeBase64url(nonce) };
}

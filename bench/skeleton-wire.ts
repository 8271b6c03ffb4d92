/**
 * The platform floor's wire (bench/skeleton.ts): frames of fixed layouts and every role's key from a
 * fixed seed, shared by the skeleton's processes and the bench's links to its certifier.
 */
import { ed25519 } from "@social-harness/protocol";

/** Frames: 1 byte kind, 4 bytes id, then the payload (record | signature), fixed layouts. */
export const PROPOSE = 1;
export const CERTIFIED = 2;
export const RECORD = 3;
export const ACK = 4;

export function frame(kind: number, id: number, ...parts: Uint8Array[]): Buffer {
  const head = Buffer.alloc(5);
  head[0] = kind;
  head.writeUInt32BE(id, 1);
  return Buffer.concat([head, ...parts]);
}

/**
 * Every role's key from a fixed seed, so each process knows the others' public keys; signed and
 * verified in the servers' own ed25519 (libsodium where it loads), as ours are.
 */
export const keyPair = (seed: number) => ed25519.signer(new Uint8Array(32).fill(seed));

/** The certifier's links: link i signs with linkKey(i). */
export const linkKey = (i: number) => keyPair(10 + i);

/** A certifier proposal's record: the previous record's hash, a 16-byte PostId, then the text. */
export const RECORD_PREV_BYTES = 32;
export const RECORD_POST_ID_BYTES = 16;

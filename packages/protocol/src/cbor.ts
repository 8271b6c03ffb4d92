/**
 * Deterministic CBOR for signed records (RFC 8949 §4.2 core deterministic encoding via cborg).
 * Encoding refuses what has no single spelling (undefined, NaN, ±Infinity, unsafe integers,
 * ill-formed strings). Decoding is strict and then proves the bytes canonical by re-encoding
 * them: out-of-order keys, over-wide floats, -0 and invalid UTF-8 are all refused that way. The
 * common shapes are first read in one pass that proves them canonical as it goes (cbor-scan.ts),
 * and written in one pass (cbor-write.ts).
 */
import { decode, encode, type DecodeOptions, type EncodeOptions } from "cborg";
import { scanCanonical } from "./cbor-scan.js";
import { writeCanonical } from "./cbor-write.js";

/** Frames beyond this are refused before decoding (1 MiB of content plus the envelope). */
export const MAX_CBOR_BYTES = 2 * 1024 * 1024;

const STRICT_DECODE: DecodeOptions = {
  strict: true,
  rejectDuplicateMapKeys: true,
  allowIndefinite: false,
  allowUndefined: false,
  allowNaN: false,
  allowInfinity: false,
  allowBigInt: false,
  useMaps: false,
};

function refuse(what: string): never {
  throw new CborError(`cannot encode ${what} deterministically`);
}

const ENCODE: EncodeOptions = {
  typeEncoders: {
    undefined: () => refuse("undefined"),
    number: (n: number) => {
      if (!Number.isFinite(n)) refuse(String(n));
      if (Number.isInteger(n) && !Number.isSafeInteger(n)) refuse(`the unsafe integer ${n}`);
      return null;
    },
    string: (s: string) => {
      if (!s.isWellFormed()) refuse("a string with a lone surrogate");
      return null;
    },
  },
};

export class CborError extends Error {
  override readonly name = "CborError";
}

/** Encodes a value deterministically; throws CborError for values with no canonical form. */
export function encodeCanonical(value: unknown): Uint8Array {
  const written = writeCanonical(value);
  if (written !== undefined) return written;
  try {
    return encode(value, ENCODE);
  } catch (cause) {
    if (cause instanceof CborError) throw cause;
    throw new CborError(`cannot encode: ${(cause as Error).message}`, { cause });
  }
}

export type DecodeResult =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string };

/**
 * Decodes bytes that must be exactly the canonical encoding of their value. Maps with non-text
 * keys or duplicate keys at any depth are refused.
 */
export function decodeCanonical(bytes: Uint8Array, maxBytes = MAX_CBOR_BYTES): DecodeResult {
  if (bytes.byteLength > maxBytes) return { ok: false, reason: `larger than ${maxBytes} bytes` };
  const scanned = scanCanonical(bytes);
  if (scanned !== undefined) return { ok: true, value: scanned.value };
  return decodeCanonicalSlowly(bytes);
}

/** The proof by re-encoding: what scanCanonical cannot vouch for, and the reason for a refusal. */
export function decodeCanonicalSlowly(bytes: Uint8Array): DecodeResult {
  let value: unknown;
  try {
    value = decode(bytes, STRICT_DECODE);
  } catch (cause) {
    return { ok: false, reason: (cause as Error).message };
  }
  let again: Uint8Array;
  try {
    again = encodeCanonical(value);
  } catch (cause) {
    return { ok: false, reason: (cause as Error).message };
  }
  if (!Buffer.from(again).equals(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))) {
    return { ok: false, reason: "not in canonical form" };
  }
  return { ok: true, value };
}

/**
 * Decodes a link frame strictly but without the canonical proof: frames are not signed, yet they
 * still refuse duplicate and non-text keys.
 */
export function decodeStrict(bytes: Uint8Array, maxBytes = MAX_CBOR_BYTES): DecodeResult {
  if (bytes.byteLength > maxBytes) return { ok: false, reason: `larger than ${maxBytes} bytes` };
  // Canonical bytes (what every Social Harness process sends) read in one pass; others strictly.
  const scanned = scanCanonical(bytes);
  if (scanned !== undefined) return { ok: true, value: scanned.value };
  try {
    return { ok: true, value: decode(bytes, STRICT_DECODE) };
  } catch (cause) {
    return { ok: false, reason: (cause as Error).message };
  }
}

/**
 * A one-pass reader for the canonical CBOR our records use: definite lengths in shortest form,
 * safe integers, valid UTF-8 text, byte strings, arrays, text-keyed maps in cborg's order
 * (shorter UTF-8 key first, then bytewise), false, true, null. It accepts only bytes that are the
 * canonical encoding of the value it returns; anything else (floats, tags, other simple values,
 * any doubt) answers undefined and the caller takes the slow proof (decode, re-encode, compare).
 */

import { copyBytes } from "./byte-slab.js";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const MAX_DEPTH = 128;

class Unsure extends Error {}
const unsure = (): never => {
  throw new Unsure();
};

/** Canonical key order within `bytes`: the shorter key first, then bytewise. */
function compareKeys(bytes: Uint8Array, a: number, aLength: number, b: number, bLength: number): number {
  if (aLength !== bLength) return aLength - bLength;
  for (let i = 0; i < aLength; i++) if (bytes[a + i] !== bytes[b + i]) return bytes[a + i]! - bytes[b + i]!;
  return 0;
}

/** Above this length a text's bytes go to TextDecoder, whose validation is vectorised. */
const SHORT_TEXT = 64;

/**
 * Map keys already seen, by a hash of their bytes: a record or frame repeats a dozen keys, and a
 * cached key is a string V8 has already internalized. Only ASCII keys of a few bytes are kept, and
 * only the first KEYS_KEPT distinct ones, so hostile keys cost a miss, never memory.
 */
const KEYS_KEPT = 512;
const MAX_KEPT_KEY = 24;
const keys = new Map<number, string>();

/** The kept keys' hash (FNV-1a, 32 bits) of `length` bytes at `start`; exported for the tests' collisions. */
export function keyHash(bytes: Uint8Array, start: number, length: number): number {
  let hash = length;
  for (let i = start; i < start + length; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash;
}

class Scanner {
  pos = 0;
  /** The bytes as a Buffer, made on the first short text: its latin1 decoding is UTF-8's for ASCII. */
  private buffer: Buffer | undefined;
  constructor(private readonly bytes: Uint8Array) {}

  /** The argument of the head at pos, checked to be in shortest form. */
  private argument(info: number): number {
    const b = this.bytes;
    if (info < 24) return info;
    let value: number;
    let min: number;
    if (info === 24) {
      if (this.pos + 1 > b.length) unsure();
      value = b[this.pos]!;
      this.pos += 1;
      min = 24;
    } else if (info === 25) {
      if (this.pos + 2 > b.length) unsure();
      value = (b[this.pos]! << 8) | b[this.pos + 1]!;
      this.pos += 2;
      min = 0x100;
    } else if (info === 26) {
      if (this.pos + 4 > b.length) unsure();
      value = ((b[this.pos]! << 24) >>> 0) + (b[this.pos + 1]! << 16) + (b[this.pos + 2]! << 8) + b[this.pos + 3]!;
      this.pos += 4;
      min = 0x10000;
    } else if (info === 27) {
      if (this.pos + 8 > b.length) unsure();
      const high = ((b[this.pos]! << 24) >>> 0) + (b[this.pos + 1]! << 16) + (b[this.pos + 2]! << 8) + b[this.pos + 3]!;
      const low =
        ((b[this.pos + 4]! << 24) >>> 0) + (b[this.pos + 5]! << 16) + (b[this.pos + 6]! << 8) + b[this.pos + 7]!;
      this.pos += 8;
      if (high > 0x1fffff) unsure();
      value = high * 0x100000000 + low;
      min = 0x100000000;
    } else {
      return unsure();
    }
    if (value < min) unsure();
    return value;
  }

  private slice(length: number): Uint8Array {
    if (this.pos + length > this.bytes.length) unsure();
    const out = this.bytes.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }

  /** A text of `length` bytes at pos: short ASCII decoded natively in place, the rest by TextDecoder. */
  private text(length: number): string {
    const b = this.bytes;
    const start = this.pos;
    const end = start + length;
    if (end > b.length) unsure();
    if (length > SHORT_TEXT) return utf8.decode(this.slice(length));
    for (let i = start; i < end; i++) if (b[i]! >= 0x80) return utf8.decode(this.slice(length));
    this.pos = end;
    if (length === 0) return "";
    this.buffer ??= Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    return this.buffer.toString("latin1", start, end);
  }

  /** A map key of `length` bytes at pos, from the cache when its bytes match a kept key. */
  private key(length: number): string {
    if (length > MAX_KEPT_KEY) return this.text(length);
    const b = this.bytes;
    const start = this.pos;
    // (The map loop checked that the key's bytes are all there.)
    const hash = keyHash(b, start, length);
    const kept = keys.get(hash);
    if (kept !== undefined && kept.length === length) {
      let same = true;
      for (let i = 0; i < length; i++) {
        if (kept.charCodeAt(i) !== b[start + i]) {
          same = false;
          break;
        }
      }
      if (same) {
        this.pos = start + length;
        return kept;
      }
    }
    const key = this.text(length);
    // Kept only when one byte is one character (ASCII), which the comparison above assumes.
    if (kept === undefined && keys.size < KEYS_KEPT && key.length === length) keys.set(hash, key);
    return key;
  }

  value(depth: number): unknown {
    if (depth > MAX_DEPTH || this.pos >= this.bytes.length) unsure();
    const head = this.bytes[this.pos++]!;
    const major = head >> 5;
    const info = head & 31;
    switch (major) {
      case 0:
        return this.argument(info);
      case 1: {
        const n = this.argument(info);
        if (n >= Number.MAX_SAFE_INTEGER) unsure();
        return -1 - n;
      }
      case 2:
        return copyBytes(this.slice(this.argument(info)));
      case 3:
        return this.text(this.argument(info));
      case 4: {
        const length = this.argument(info);
        const list: unknown[] = [];
        for (let i = 0; i < length; i++) list.push(this.value(depth + 1));
        return list;
      }
      case 5: {
        const length = this.argument(info);
        const map: Record<string, unknown> = {};
        let previous = -1;
        let previousLength = 0;
        for (let i = 0; i < length; i++) {
          if (this.pos >= this.bytes.length || this.bytes[this.pos]! >> 5 !== 3) unsure();
          const keyHead = this.bytes[this.pos++]!;
          const keyLength = this.argument(keyHead & 31);
          const keyStart = this.pos;
          if (keyStart + keyLength > this.bytes.length) unsure();
          if (previous >= 0 && compareKeys(this.bytes, previous, previousLength, keyStart, keyLength) >= 0) unsure();
          const key = this.key(keyLength);
          previous = keyStart;
          previousLength = keyLength;
          if (key === "__proto__") unsure();
          map[key] = this.value(depth + 1);
        }
        return map;
      }
      case 7:
        if (head === 0xf4) return false;
        if (head === 0xf5) return true;
        if (head === 0xf6) return null;
        return unsure();
      default:
        return unsure();
    }
  }
}

/** The value of canonical bytes, or undefined when this reader cannot prove them canonical. */
export function scanCanonical(bytes: Uint8Array): { value: unknown } | undefined {
  const scanner = new Scanner(bytes);
  try {
    const value = scanner.value(0);
    return scanner.pos === bytes.length ? { value } : undefined;
  } catch (error) {
    if (error instanceof Unsure || error instanceof TypeError) return undefined;
    throw error;
  }
}

/**
 * One-pass deterministic CBOR for the shapes records and frames are made of: null, booleans, safe
 * integers, well-formed strings, byte strings, arrays and plain objects with ASCII keys. It writes
 * the exact bytes cborg's canonical encoding writes (RFC 8949 §4.2: shortest heads, map keys
 * shorter first then bytewise) without building cborg's token tree. Anything else (a float, -0,
 * a non-ASCII key, a Map, a class instance, undefined) makes it answer `undefined`, and the caller
 * encodes with cborg, which either handles the value or refuses it with the reason.
 */

import { copyBytes } from "./byte-slab.js";

const INITIAL = 16 * 1024;

class Unsupported extends Error {}
const UNSUPPORTED = new Unsupported();

/**
 * Bytes that are already the canonical encoding of a value, written in its place as they are: a
 * bound intent's content inside the record that carries it. The caller vouches for the bytes.
 */
export class Preencoded {
  constructor(readonly bytes: Uint8Array) {}
}

/** One writer per process: encoding is synchronous, so it is never used by two callers at once. */
let scratch = Buffer.allocUnsafeSlow(INITIAL);
let at = 0;
/** Set while writing: a getter that encodes again (re-entry) is left to cborg. */
let busy = false;

function room(bytes: number): void {
  if (at + bytes <= scratch.length) return;
  let size = scratch.length * 2;
  while (size < at + bytes) size *= 2;
  const bigger = Buffer.allocUnsafeSlow(size);
  scratch.copy(bigger, 0, 0, at);
  scratch = bigger;
}

/** A head: major type and argument, in the fewest bytes. */
function head(major: number, n: number): void {
  room(9);
  const m = major << 5;
  if (n < 24) scratch[at++] = m | n;
  else if (n < 0x100) {
    scratch[at++] = m | 24;
    scratch[at++] = n;
  } else if (n < 0x10000) {
    scratch[at++] = m | 25;
    scratch.writeUInt16BE(n, at);
    at += 2;
  } else if (n < 0x100000000) {
    scratch[at++] = m | 26;
    scratch.writeUInt32BE(n, at);
    at += 4;
  } else {
    scratch[at++] = m | 27;
    scratch.writeUInt32BE(Math.floor(n / 0x100000000), at);
    scratch.writeUInt32BE(n >>> 0, at + 4);
    at += 8;
  }
}

/** Texts up to this many characters are tried as ASCII, written by this loop without a native call. */
const SHORT_TEXT = 64;

function text(s: string): void {
  const n = s.length;
  if (n <= SHORT_TEXT) {
    // Written as ASCII after a head that assumes one byte per character; any other character
    // leaves the bytes written so far to be overwritten by the general path.
    // Room for the longest head too, so head() below never moves the scratch buffer.
    room(n + 9);
    const start = at;
    let p = start + (n < 24 ? 1 : 2);
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      scratch[p++] = c;
    }
    if (i === n) {
      head(3, n);
      at = p;
      return;
    }
  }
  if (!s.isWellFormed()) throw UNSUPPORTED;
  const length = Buffer.byteLength(s, "utf8");
  head(3, length);
  room(length);
  at += scratch.write(s, at, length, "utf8");
}

/** Keys shorter first, then bytewise; for ASCII keys bytewise is the strings' own order. */
function byEncodedKey(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** Sorts an object's few keys in place into canonical order (an insertion sort: a dozen at most). */
function sortKeys(keys: string[]): void {
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && byEncodedKey(keys[j]!, key) > 0) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * Short ASCII keys already checked: records and frames repeat a few dozen. Only the first
 * KEYS_KEPT distinct ones are kept, so other keys (a form's, a hostile value's) cost the check.
 */
const asciiKeys = new Set<string>();
const KEYS_KEPT = 512;
const MAX_KEPT_KEY = 24;

function isAsciiKey(key: string): boolean {
  if (asciiKeys.has(key)) return true;
  if (!ASCII.test(key)) return false;
  if (asciiKeys.size < KEYS_KEPT && key.length <= MAX_KEPT_KEY) asciiKeys.add(key);
  return true;
}

function value(v: unknown, depth: number): void {
  if (depth > 64) throw UNSUPPORTED;
  switch (typeof v) {
    case "string":
      text(v);
      return;
    case "number":
      if (!Number.isSafeInteger(v) || Object.is(v, -0)) throw UNSUPPORTED;
      if (v >= 0) head(0, v);
      else head(1, -1 - v);
      return;
    case "boolean":
      room(1);
      scratch[at++] = v ? 0xf5 : 0xf4;
      return;
    case "object":
      break;
    default:
      throw UNSUPPORTED;
  }
  if (v === null) {
    room(1);
    scratch[at++] = 0xf6;
    return;
  }
  if (v instanceof Preencoded) {
    room(v.bytes.byteLength);
    scratch.set(v.bytes, at);
    at += v.bytes.byteLength;
    return;
  }
  if (v instanceof Uint8Array) {
    if (v.constructor !== Uint8Array && !Buffer.isBuffer(v)) throw UNSUPPORTED;
    head(2, v.byteLength);
    room(v.byteLength);
    scratch.set(v, at);
    at += v.byteLength;
    return;
  }
  if (Array.isArray(v)) {
    head(4, v.length);
    for (const item of v) value(item, depth + 1);
    return;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) throw UNSUPPORTED;
  const record = v as Record<string, unknown>;
  const keys = Object.keys(record);
  for (const key of keys) if (!isAsciiKey(key)) throw UNSUPPORTED;
  sortKeys(keys);
  head(5, keys.length);
  for (const key of keys) {
    text(key);
    value(record[key], depth + 1);
  }
}

/** The canonical bytes of `v`, or undefined when it holds something only cborg encodes. */
export function writeCanonical(v: unknown): Uint8Array | undefined {
  if (busy) return undefined;
  busy = true;
  at = 0;
  try {
    value(v, 0);
  } catch (error) {
    if (error === UNSUPPORTED) return undefined;
    throw error;
  } finally {
    busy = false;
  }
  return copyBytes(scratch.subarray(0, at));
}

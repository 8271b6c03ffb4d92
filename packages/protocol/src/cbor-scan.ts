/**
 * A one-pass reader for the canonical CBOR our records use: definite lengths in shortest form,
 * safe integers, valid UTF-8 text, byte strings, arrays, text-keyed maps in cborg's order
 * (shorter UTF-8 key first, then bytewise), false, true, null. It accepts only bytes that are the
 * canonical encoding of the value it returns; anything else (floats, tags, other simple values,
 * any doubt) answers undefined and the caller takes the slow proof (decode, re-encode, compare).
 */

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const MAX_DEPTH = 128;

class Unsure extends Error {}
const unsure = (): never => {
  throw new Unsure();
};

function compareKeys(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

class Scanner {
  pos = 0;
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
        return new Uint8Array(this.slice(this.argument(info)));
      case 3:
        return utf8.decode(this.slice(this.argument(info)));
      case 4: {
        const length = this.argument(info);
        const list: unknown[] = [];
        for (let i = 0; i < length; i++) list.push(this.value(depth + 1));
        return list;
      }
      case 5: {
        const length = this.argument(info);
        const map: Record<string, unknown> = {};
        let previous: Uint8Array | undefined;
        for (let i = 0; i < length; i++) {
          if (this.pos >= this.bytes.length || this.bytes[this.pos]! >> 5 !== 3) unsure();
          const keyHead = this.bytes[this.pos++]!;
          const keyBytes = this.slice(this.argument(keyHead & 31));
          if (previous !== undefined && compareKeys(previous, keyBytes) >= 0) unsure();
          previous = keyBytes;
          const key = utf8.decode(keyBytes);
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

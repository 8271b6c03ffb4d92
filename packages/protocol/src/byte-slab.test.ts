import { describe, expect, it } from "vitest";
import { copyBytes, ownBuffer } from "./byte-slab.js";

const filled = (length: number, byte: number) => new Uint8Array(length).fill(byte);

describe("copies carved from a byte slab", () => {
  it("copies bytes of every size into plain Uint8Arrays that share nothing with their source", () => {
    for (const length of [0, 1, 64, 65, 400, 4096, 4097, 100_000]) {
      const source = Buffer.alloc(length, 7);
      const copy = copyBytes(source);
      expect(copy.constructor).toBe(Uint8Array);
      expect(Buffer.from(copy).equals(source)).toBe(true);
      source.fill(9);
      expect(copy.every((b) => b === 7)).toBe(true);
    }
  });

  it("keeps every copy intact across many copies and new slabs", () => {
    const copies = Array.from({ length: 200 }, (_, i) => copyBytes(filled(65 + (i % 300), i % 256)));
    copies.forEach((copy, i) => {
      expect(copy.byteLength).toBe(65 + (i % 300));
      expect(copy.every((b) => b === i % 256)).toBe(true);
    });
  });

  it("gives a view its own buffer before it crosses to another thread, and leaves a whole buffer as it is", () => {
    const carved = copyBytes(filled(100, 1));
    expect(carved.byteLength).toBeLessThan(carved.buffer.byteLength);
    const own = ownBuffer(carved);
    expect(own.buffer.byteLength).toBe(100);
    expect(own).toEqual(carved);
    const whole = new Uint8Array(100);
    expect(ownBuffer(whole)).toBe(whole);
  });
});

import { encode, type EncodeOptions } from "cborg";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeCanonical } from "./cbor.js";
import { Preencoded, writeCanonical } from "./cbor-write.js";

/** cborg as encodeCanonical calls it, without the refusals (the one-pass writer never sees those values). */
const CBORG: EncodeOptions = {};

const key = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom("a", "b", "aa", "conv", "seq", "kind", "t"));
const leaf = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 }),
  fc.maxSafeInteger(),
  fc.maxSafeNat(),
  fc.constantFrom(0, 23, 24, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, -24, -25, -256, -257, -65537),
  fc.string({ maxLength: 300 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.uint8Array({ maxLength: 300 }),
);
const shaped = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, leaf, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 8 }),
  object: fc.dictionary(key, tie("value"), { maxKeys: 10 }),
})).value;

describe("the one-pass canonical writer", () => {
  it("writes exactly cborg's canonical bytes for every value it takes", () => {
    fc.assert(
      fc.property(shaped, (value) => {
        const written = writeCanonical(value);
        const expected = encode(value, CBORG);
        if (written === undefined) return; // a non-ASCII key: cborg encodes it (checked below)
        expect(Buffer.from(written).toString("hex")).toBe(Buffer.from(expected).toString("hex"));
      }),
      { numRuns: 3000 },
    );
  });

  it("takes the shapes records are made of (ASCII keys), so the fast path is the common path", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.stringMatching(/^[a-z]{1,12}$/), leaf, { maxKeys: 12 }),
        (value) => writeCanonical(value) !== undefined,
      ),
    );
  });

  it("leaves to cborg what it does not take, and encodeCanonical still encodes or refuses it", () => {
    for (const value of [1.5, -0, { é: 1 }, new Map([["a", 1]]), { a: new Date(0) }, new Uint16Array(2)])
      expect(writeCanonical(value)).toBeUndefined();
    expect(Buffer.from(encodeCanonical({ n: 1.5, é: 2 })).toString("hex")).toBe(
      Buffer.from(encode({ n: 1.5, é: 2 })).toString("hex"),
    );
    expect(() => encodeCanonical({ a: undefined })).toThrow(/undefined/);
    expect(() => encodeCanonical("\ud800")).toThrow(/surrogate/);
    expect(() => encodeCanonical(2 ** 53)).toThrow(/unsafe integer/);
  });

  it("returns bytes of its own, untouched by the next write, and survives a value larger than its buffer", () => {
    const first = writeCanonical({ a: "x" })!;
    const big = writeCanonical({ b: new Uint8Array(100_000).fill(7) })!;
    expect(Buffer.from(first).toString("hex")).toBe("a161616178"); // {"a": "x"}
    expect(big.byteLength).toBe(100_000 + 1 + 2 + 5);
  });

  it("writes pre-encoded bytes in place of their value, as they are", () => {
    fc.assert(
      fc.property(shaped, shaped, (outer, inner) => {
        const expected = writeCanonical({ outer, inner });
        if (expected === undefined) return;
        const spliced = writeCanonical({ outer, inner: new Preencoded(writeCanonical(inner)!) });
        expect(Buffer.from(spliced!).toString("hex")).toBe(Buffer.from(expected).toString("hex"));
      }),
      { numRuns: 1000 },
    );
  });

  it("leaves a re-entrant write (a getter that encodes) to cborg, with the same bytes", () => {
    const value = {
      get inner() {
        return Buffer.from(encodeCanonical({ z: 1 })).toString("hex");
      },
    };
    expect(Buffer.from(encodeCanonical(value)).toString("hex")).toBe(Buffer.from(encode(value)).toString("hex"));
  });
});

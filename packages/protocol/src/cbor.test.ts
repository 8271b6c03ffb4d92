import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeCanonical, decodeCanonicalSlowly, encodeCanonical } from "./cbor.js";
import { keyHash, scanCanonical } from "./cbor-scan.js";

const hex = (h: string) => new Uint8Array(Buffer.from(h.replace(/\s/g, ""), "hex"));

describe("deterministic CBOR", () => {
  it("round-trips canonical bytes", () => {
    const bytes = encodeCanonical({ b: [1, "x", null, true], a: { nested: 1.5 } });
    const decoded = decodeCanonical(bytes);
    expect(decoded).toEqual({ ok: true, value: { b: [1, "x", null, true], a: { nested: 1.5 } } });
  });

  it.each([
    ["a duplicate key", "a2 6161 01 6161 02"],
    ["a duplicate key at depth", "a1 6161 a2 6162 01 6162 02"],
    ["an integer key", "a1 01 02"],
    ["a byte-string key", "a1 4100 02"],
    ["a nested non-text key", "a1 6161 a1 01 02"],
    ["out-of-order keys", "a2 6162 01 6161 02"],
    ["an over-wide float", "fb 3ff8000000000000"],
    ["an integer written as a float", "f9 3c00"],
    ["negative zero", "f9 8000"],
    ["invalid UTF-8", "62 c328"],
    ["a non-shortest integer", "18 01"],
    ["an indefinite array", "9f 01 02 ff"],
    ["undefined", "f7"],
    ["NaN", "f9 7e00"],
    ["a tag", "c1 01"],
    ["trailing bytes", "01 01"],
    ["truncated input", "62 61"],
  ])("refuses %s", (_, input) => {
    expect(decodeCanonical(hex(input)).ok).toBe(false);
  });

  it("refuses to encode values without one spelling", () => {
    expect(() => encodeCanonical({ a: undefined })).toThrow();
    expect(() => encodeCanonical(Number.NaN)).toThrow();
    expect(() => encodeCanonical(2 ** 53)).toThrow();
    expect(() => encodeCanonical("\ud800")).toThrow();
  });

  it("reads a key whose hash collides with a kept key as its own bytes", () => {
    // Two four-letter keys with one hash: the one read first is kept, the other must not read as it.
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; pair === undefined; i++) {
      const key = i.toString(36).padStart(4, "0");
      const hash = keyHash(Buffer.from(key), 0, key.length);
      const other = seen.get(hash);
      if (other !== undefined) pair = [other, key];
      else seen.set(hash, key);
    }
    const [first, second] = pair;
    expect(scanCanonical(encodeCanonical({ [first]: 1 }))?.value).toEqual({ [first]: 1 });
    expect(scanCanonical(encodeCanonical({ [second]: 2 }))?.value).toEqual({ [second]: 2 });
    expect(scanCanonical(encodeCanonical({ [first]: 3, [second]: 4 }))?.value).toEqual({ [first]: 3, [second]: 4 });
  });

  it("reads keys and texts alike once more distinct keys came than it keeps", () => {
    const many = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`k${i}`, `v${i}é`]));
    expect(scanCanonical(encodeCanonical(many))?.value).toEqual(many);
    const usual = { conv: "direct:alice,bob", kind: "post", text: "x".repeat(65), ké: "ü" };
    expect(scanCanonical(encodeCanonical(usual))?.value).toEqual(usual);
  });

  it("refuses input above the size cap before decoding", () => {
    expect(decodeCanonical(new Uint8Array(10), 5)).toMatchObject({ ok: false });
  });

  const values = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      fc.string({ unit: "grapheme" }),
      fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
      fc.constantFrom(0, 23, 24, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, -24, -25, -257, 2 ** 53 - 1),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
      fc.uint8Array({ maxLength: 40 }),
      fc.array(tie("value"), { maxLength: 5 }),
      fc.dictionary(fc.string({ maxLength: 30 }), tie("value"), { maxKeys: 6 }),
    ),
  })).value;

  it("reads canonical bytes in one pass exactly as the proof by re-encoding does", () => {
    fc.assert(
      fc.property(values, (value) => {
        let bytes: Uint8Array;
        try {
          bytes = encodeCanonical(value);
        } catch {
          return;
        }
        const scanned = scanCanonical(bytes);
        const slow = decodeCanonicalSlowly(bytes);
        if (scanned !== undefined) expect(slow).toEqual({ ok: true, value: scanned.value });
        expect(decodeCanonical(bytes)).toEqual(slow);
      }),
      { numRuns: 500 },
    );
  }, 60_000);

  it("never vouches for bytes the proof by re-encoding refuses", () => {
    fc.assert(
      fc.property(
        values,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 3 }),
        (value, edits) => {
          let bytes: Uint8Array;
          try {
            bytes = new Uint8Array(encodeCanonical(value));
          } catch {
            return;
          }
          for (const [at, byte] of edits) if (bytes.length > 0) bytes[at % bytes.length] = byte;
          const scanned = scanCanonical(bytes);
          if (scanned !== undefined) expect(decodeCanonicalSlowly(bytes)).toEqual({ ok: true, value: scanned.value });
        },
      ),
      { numRuns: 800 },
    );
  }, 60_000);
});

import { describe, expect, it } from "vitest";
import { decodeCanonical, encodeCanonical } from "./cbor.js";

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

  it("refuses input above the size cap before decoding", () => {
    expect(decodeCanonical(new Uint8Array(10), 5)).toMatchObject({ ok: false });
  });
});

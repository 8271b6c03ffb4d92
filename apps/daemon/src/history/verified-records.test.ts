import { describe, expect, it } from "vitest";
import { VerifiedRecords } from "./verified-records.js";

describe("VerifiedRecords", () => {
  it("knows a certificate only for the seq it verified at, and only byte for byte", () => {
    const known = new VerifiedRecords();
    known.certified("h1", 3, new Uint8Array([1, 2, 3]));
    expect(known.isVerifiedCertificate("h1", 3, new Uint8Array([1, 2, 3]))).toBe(true);
    expect(known.isVerifiedCertificate("h1", 4, new Uint8Array([1, 2, 3]))).toBe(false);
    expect(known.isVerifiedCertificate("h1", 3, new Uint8Array([1, 2, 4]))).toBe(false);
    expect(known.isVerifiedCertificate("h2", 3, new Uint8Array([1, 2, 3]))).toBe(false);
  });

  it("knows our own signature only for the record hash it was made over", () => {
    const known = new VerifiedRecords();
    known.signed("h1", new Uint8Array([9, 9]));
    expect(known.isOwnSignature("h1", new Uint8Array([9, 9]))).toBe(true);
    expect(known.isOwnSignature("h1", new Uint8Array([9, 8]))).toBe(false);
    expect(known.isOwnSignature("h2", new Uint8Array([9, 9]))).toBe(false);
  });

  it("forgets the oldest records past its bound", () => {
    const known = new VerifiedRecords();
    for (let i = 0; i < 5000; i++) known.signed(`h${i}`, new Uint8Array([1]));
    expect(known.isOwnSignature("h0", new Uint8Array([1]))).toBe(false);
    expect(known.isOwnSignature("h4999", new Uint8Array([1]))).toBe(true);
  });
});

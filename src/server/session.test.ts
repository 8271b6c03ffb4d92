import { describe, expect, it, vi } from "vitest";

vi.mock("server-only", () => ({}));
const { SESSION_TTL_MS, signSession, verifySession } = await import("./session");

const SECRET = "a-console-secret-of-at-least-32-characters";
const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);

describe("console sessions", () => {
  it("verifies a session it signed until it expires 12 hours later", () => {
    const value = signSession(SECRET, NOW);
    expect(verifySession(SECRET, value, NOW)).toEqual({ ok: true, expiresAt: NOW + SESSION_TTL_MS });
    expect(verifySession(SECRET, value, NOW + SESSION_TTL_MS - 1).ok).toBe(true);
    expect(verifySession(SECRET, value, NOW + SESSION_TTL_MS)).toEqual({ ok: false, reason: "expired" });
    expect(SESSION_TTL_MS).toBe(12 * 60 * 60 * 1000);
  });

  it("mints a different value for every login", () => {
    expect(signSession(SECRET, NOW)).not.toBe(signSession(SECRET, NOW));
  });

  it("refuses a value signed with another secret", () => {
    const value = signSession("another-secret-that-is-32-characters-long", NOW);
    expect(verifySession(SECRET, value, NOW)).toEqual({ ok: false, reason: "forged" });
  });

  it("refuses a value whose expiry was pushed back", () => {
    const [expiry, nonce, mac] = signSession(SECRET, NOW).split(".");
    const extended = `${Number(expiry) + SESSION_TTL_MS}.${nonce}.${mac}`;
    expect(verifySession(SECRET, extended, NOW + SESSION_TTL_MS + 1)).toEqual({ ok: false, reason: "forged" });
  });

  it("refuses every other spelling of the signature, including padding-bit aliases", () => {
    const value = signSession(SECRET, NOW);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for (const char of alphabet) {
      if (char === value.at(-1)) continue;
      expect(verifySession(SECRET, value.slice(0, -1) + char, NOW)).toEqual({ ok: false, reason: "forged" });
    }
  });

  it("refuses a tampered signature", () => {
    const value = signSession(SECRET, NOW);
    const flipped = value.slice(0, -1) + (value.endsWith("A") ? "B" : "A");
    expect(verifySession(SECRET, flipped, NOW)).toEqual({ ok: false, reason: "forged" });
  });

  it("refuses missing and malformed values", () => {
    expect(verifySession(SECRET, undefined, NOW)).toEqual({ ok: false, reason: "missing" });
    expect(verifySession(SECRET, "", NOW)).toEqual({ ok: false, reason: "missing" });
    for (const value of ["garbage", "1.2.3", `${NOW}..`, `${signSession(SECRET, NOW)}.extra`, "x".repeat(4096)]) {
      expect(verifySession(SECRET, value, NOW)).toEqual({ ok: false, reason: "malformed" });
    }
  });
});

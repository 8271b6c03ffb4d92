import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBase64url, encodeBase64url } from "./base64url.js";
import { collectiveIdOf, deliveryTokenOf, eventIdOf, isId, mintCollectiveId, mintId, recordHashOf } from "./ids.js";

describe("opaque ids", () => {
  it("mints delivery tokens of dlv_ and 43 canonical base64url characters", () => {
    const token = mintId("delivery");
    expect(token).toMatch(/^dlv_[A-Za-z0-9_-]{43}$/);
    expect(isId("delivery", token)).toBe(true);
    expect(mintId("delivery")).not.toBe(token);
  });

  it("mints distinct canonical ids across many refills of its random pool", () => {
    const ids = Array.from({ length: 1_000 }, () => mintId("post"));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => isId("post", id))).toBe(true);
    // No two ids share their bytes in part: each takes its own 32 bytes of the pool.
    const bodies = new Set(ids.map((id) => id.slice(4, 20)));
    expect(bodies.size).toBe(ids.length);
  });

  it("refuses a non-canonical alias of the same bytes", () => {
    const token = mintId("delivery");
    const body = token.slice(4);
    // The last character carries 4 data bits and 2 padding bits; setting a padding bit gives
    // another spelling that lenient decoders map to the same 32 bytes.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = alphabet.indexOf(body.at(-1)!);
    const alias = body.slice(0, -1) + alphabet[last ^ 1];
    expect(Buffer.from(alias, "base64url")).toEqual(Buffer.from(body, "base64url"));
    expect(isId("delivery", `dlv_${alias}`)).toBe(false);
    expect(decodeBase64url(alias)).toBeUndefined();
  });

  it("refuses wrong prefixes, lengths and alphabets", () => {
    const body = mintId("post").slice(4);
    expect(isId("post", `pst_${body}`)).toBe(true);
    expect(isId("delivery", `pst_${body}`)).toBe(false);
    expect(isId("post", `pst_${body}A`)).toBe(false);
    expect(isId("post", `pst_${body.slice(1)}`)).toBe(false);
    expect(isId("post", `pst_${body.slice(0, -1)}=`)).toBe(false);
    expect(isId("post", `pst_${body.slice(0, -2)}+/`)).toBe(false);
    expect(isId("post", 42)).toBe(false);
  });

  it("maps a delivery token to its event id and back", () => {
    const token = mintId("delivery");
    const eventId = eventIdOf(token);
    expect(eventId).toBe(`evt_${token.slice(4)}`);
    expect(deliveryTokenOf(eventId)).toBe(token);
    expect(deliveryTokenOf(`evt_${token.slice(4, -1)}`)).toBeUndefined();
  });

  it("derives collective ids from the requester and nonce", () => {
    const { id, nonce } = mintCollectiveId("alice");
    const nonceBytes = decodeBase64url(nonce)!;
    expect(collectiveIdOf("alice", nonceBytes)).toBe(id);
    expect(collectiveIdOf("bob", nonceBytes)).not.toBe(id);
    expect(isId("collective", id)).toBe(true);
  });

  it("hashes record bytes with SHA-256", () => {
    const hash = recordHashOf(new Uint8Array([1, 2, 3]));
    expect(hash).toBe(
      "rec_" + encodeBase64url(Buffer.from("039058c6f2c0cb492c533b0a4d14ef77cc0f78abccced5287d84a1a2011cfb81", "hex")),
    );
  });

  it("accepts exactly the bodies that decode canonically to 32 bytes", () => {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/.";
    const body = fc.string({ unit: fc.constantFrom(...alphabet), minLength: 42, maxLength: 44 });
    fc.assert(
      fc.property(body, (text) => {
        expect(isId("post", `pst_${text}`)).toBe(decodeBase64url(text)?.length === 32 && text.length === 43);
      }),
      { numRuns: 3000 },
    );
  });
});

import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { callbackHeaders, parseWebhookSecret, secretFingerprint, signPayload } from "./signing.js";

describe("Standard Webhooks signing", () => {
  it("matches the specification's golden vector", () => {
    const key = parseWebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")!;
    const body = Buffer.from('{"test": 2432232314}');
    expect(signPayload(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body)).toBe(
      "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    );
  });

  it("produces headers the standardwebhooks package verifies, over the exact UTF-8 bytes", () => {
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    const body = Buffer.from(JSON.stringify({ eventId: "evt_x", data: { text: "héllo ✓ 😀" } }), "utf8");
    const headers = callbackHeaders({
      key: parseWebhookSecret(secret)!,
      id: "evt_x",
      timestampSeconds: Math.floor(Date.now() / 1000),
      body,
      subscriptionId: "sub_1",
    });
    expect(headers).toMatchObject({
      "content-type": "application/json",
      "webhook-id": "evt_x",
      "x-mcp-subscription-id": "sub_1",
    });
    expect(new Webhook(secret).verify(body.toString("utf8"), headers)).toEqual(JSON.parse(body.toString("utf8")));
    const other = `whsec_${randomBytes(32).toString("base64")}`;
    expect(() => new Webhook(other).verify(body.toString("utf8"), headers)).toThrow();
  });

  it("accepts secrets of 24 to 64 bytes in canonical base64, padded or not", () => {
    for (const size of [24, 25, 32, 63, 64]) {
      const b64 = randomBytes(size).toString("base64");
      expect(parseWebhookSecret(`whsec_${b64}`)?.length).toBe(size);
      expect(parseWebhookSecret(`whsec_${b64.replace(/=+$/, "")}`)?.length).toBe(size);
    }
  });

  it("refuses short, long, unprefixed, base64url and non-canonical secrets", () => {
    const ok = randomBytes(32).toString("base64");
    expect(parseWebhookSecret(`whsec_${randomBytes(23).toString("base64")}`)).toBeUndefined();
    expect(parseWebhookSecret(`whsec_${randomBytes(65).toString("base64")}`)).toBeUndefined();
    expect(parseWebhookSecret(ok)).toBeUndefined();
    expect(parseWebhookSecret(`whsk_${ok}`)).toBeUndefined();
    expect(parseWebhookSecret(`whsec_${randomBytes(32).toString("base64url")}-_`)).toBeUndefined();
    expect(parseWebhookSecret(`whsec_${ok} `)).toBeUndefined();
    expect(parseWebhookSecret("whsec_")).toBeUndefined();
    // 25 bytes end in two padding characters; the last data character carries 4 spare bits.
    const b64 = randomBytes(25).toString("base64");
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const last = b64.at(-3)!;
    const alias = b64.slice(0, -3) + alphabet[alphabet.indexOf(last) ^ 1] + "==";
    expect(parseWebhookSecret(`whsec_${alias}`)).toBeUndefined();
  });

  it("fingerprints a secret as the first 12 hex characters of its SHA-256", () => {
    const fingerprint = secretFingerprint("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    expect(fingerprint).toMatch(/^[0-9a-f]{12}$/);
    expect(fingerprint).not.toBe(secretFingerprint(`whsec_${randomBytes(24).toString("base64")}`));
  });
});

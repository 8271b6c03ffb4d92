import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  grantLeaseMs,
  LEASE_MAX_MS,
  LEASE_MIN_MS,
  parseSubscribe,
  parseUnsubscribe,
  subscriptionIdOf,
} from "./webhooks.schema.js";
import { canonicalJson } from "../canonical-json.js";

const ITEM = "org.social-harness/inbox.item";
const secret = `whsec_${randomBytes(32).toString("base64")}`;
const params = (delivery: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name: ITEM,
  arguments: {},
  delivery: { mode: "webhook", url: "https://hooks.example.com/in?key=a", secret, ...delivery },
  ...extra,
});
const failureOf = (raw: Record<string, unknown>, allowLocal = false) => {
  const parsed = parseSubscribe("runtime", raw, allowLocal);
  return parsed.ok ? undefined : parsed.failure;
};

describe("events/subscribe params", () => {
  it("accepts the webhook profile with mode absent or webhook", () => {
    expect(parseSubscribe("runtime", params({}), false)).toMatchObject({
      ok: true,
      value: { key: { principal: "runtime", url: "https://hooks.example.com/in?key=a", name: ITEM, arguments: {} } },
    });
    expect(parseSubscribe("owner", params({ mode: undefined }), false).ok).toBe(true);
    expect(parseSubscribe("owner", { name: ITEM, delivery: { url: "https://a.example", secret } }, false).ok).toBe(
      true,
    );
  });

  it("refuses the push event as an unsupported delivery mode and unknown events as not found", () => {
    expect(failureOf(params({}, { name: "org.social-harness/inbox.pending" }))).toEqual({
      kind: "unsupported",
      feature: "deliveryMode",
      value: "webhook",
    });
    expect(failureOf(params({}, { name: "nope" }))).toEqual({ kind: "unknown-event" });
    // The event is judged before the rest of the params.
    expect(failureOf({ name: "nope" })).toEqual({ kind: "unknown-event" });
  });

  it("refuses arguments, other delivery modes, and malformed params", () => {
    expect(failureOf(params({}, { arguments: { a: 1 } }))).toMatchObject({ kind: "invalid-params" });
    expect(failureOf(params({ mode: "push" }))).toEqual({
      kind: "unsupported",
      feature: "deliveryMode",
      value: "push",
    });
    expect(failureOf(params({ mode: "poll" }))).toMatchObject({ kind: "unsupported", value: "poll" });
    expect(failureOf({ name: ITEM })).toMatchObject({ kind: "invalid-params" });
    expect(failureOf(params({ url: 7 }))).toMatchObject({ kind: "invalid-params" });
    expect(failureOf(params({}, { ttlMs: "soon" }))).toMatchObject({ kind: "invalid-params" });
  });

  it("requires https unless local callbacks are allowed, and refuses private literal addresses", () => {
    for (const url of [
      "http://hooks.example.com/",
      "ftp://hooks.example.com/",
      "not a url",
      "https://u:p@hooks.example.com/",
      "https://hooks.example.com/#frag",
      "https://127.0.0.1/hook",
      "https://[::1]/hook",
      "https://10.0.0.1/",
      "https://169.254.169.254/latest",
      "https://0x7f.1/",
      "https://2130706433/",
    ]) {
      expect(failureOf(params({ url })), url).toMatchObject({
        kind: "invalid-params",
        message: expect.stringContaining("delivery.url"),
      });
    }
    expect(failureOf(params({ url: "http://127.0.0.1:9/hook" }), true)).toBeUndefined();
    expect(failureOf(params({ url: "https://[::1]:9/hook" }), true)).toBeUndefined();
    expect(failureOf(params({ url: "https://169.254.169.254/" }), true)).toMatchObject({ kind: "invalid-params" });
  });

  it("refuses secrets outside whsec_ + base64 of 24-64 bytes", () => {
    for (const bad of [
      "",
      "whsec_",
      secret.slice(6),
      `whsec_${randomBytes(16).toString("base64")}`,
      `whsec_${randomBytes(65).toString("base64")}`,
    ]) {
      expect(failureOf(params({ secret: bad }))).toMatchObject({
        kind: "invalid-params",
        message: expect.stringContaining("secret"),
      });
    }
  });

  it("clamps the lease to [60 s, 24 h] with 24 h for null or absent", () => {
    expect(grantLeaseMs(undefined)).toBe(LEASE_MAX_MS);
    expect(grantLeaseMs(null)).toBe(LEASE_MAX_MS);
    expect(grantLeaseMs(0)).toBe(LEASE_MIN_MS);
    expect(grantLeaseMs(-5)).toBe(LEASE_MIN_MS);
    expect(grantLeaseMs(1_000)).toBe(60_000);
    expect(grantLeaseMs(3_600_000)).toBe(3_600_000);
    expect(grantLeaseMs(7 * LEASE_MAX_MS)).toBe(LEASE_MAX_MS);
    const parsed = parseSubscribe("runtime", params({}, { ttlMs: 90_000 }), false);
    expect(parsed.ok && parsed.value.leaseMs).toBe(90_000);
  });
});

describe("subscription ids", () => {
  const key = { principal: "runtime" as const, url: "https://a.example/h", name: ITEM, arguments: {} };

  it("derive sub_ + the hex SHA-256 of the canonical key, deterministically", () => {
    const id = subscriptionIdOf(key);
    expect(id).toMatch(/^sub_[0-9a-f]{64}$/);
    expect(subscriptionIdOf({ ...key })).toBe(id);
  });

  it("differ by principal, byte-exact URL, event name and arguments", () => {
    const id = subscriptionIdOf(key);
    expect(subscriptionIdOf({ ...key, principal: "owner" })).not.toBe(id);
    expect(subscriptionIdOf({ ...key, url: "https://a.example/h/" })).not.toBe(id);
    expect(subscriptionIdOf({ ...key, url: "https://A.example/h" })).not.toBe(id);
    expect(subscriptionIdOf({ ...key, name: "other" })).not.toBe(id);
    expect(subscriptionIdOf({ ...key, arguments: { a: 1 } })).not.toBe(id);
  });

  it("compare arguments by canonical JSON", () => {
    expect(canonicalJson({ b: [1, { y: 2, x: 1 }], a: "é" })).toBe('{"a":"é","b":[1,{"x":1,"y":2}]}');
    expect(subscriptionIdOf({ ...key, arguments: { a: 1, b: 2 } })).toBe(
      subscriptionIdOf({ ...key, arguments: { b: 2, a: 1 } }),
    );
  });
});

describe("events/unsubscribe params", () => {
  it("names the same key without a secret", () => {
    const parsed = parseUnsubscribe("owner", { name: ITEM, arguments: {}, delivery: { url: "https://a.example/h" } });
    expect(parsed.ok && subscriptionIdOf(parsed.value)).toBe(
      subscriptionIdOf({ principal: "owner", url: "https://a.example/h", name: ITEM, arguments: {} }),
    );
    expect(parseUnsubscribe("owner", { name: "x", delivery: { url: "https://a" } })).toMatchObject({
      ok: false,
      failure: { kind: "unknown-event" },
    });
    expect(parseUnsubscribe("owner", { name: ITEM })).toMatchObject({ ok: false, failure: { kind: "invalid-params" } });
  });
});

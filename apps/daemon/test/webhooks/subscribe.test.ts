/**
 * events/subscribe and events/unsubscribe on real daemons with a real HTTPS receiver: the signed
 * challenge, the lease, deterministic ids, verification caching and secret rotation, parameter
 * refusals, refusal of non-public callbacks, and what is persisted (sealed) across a restart.
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../harness/mcp.js";
import { Network } from "../harness/network.js";
import { ownerClient } from "../harness/owner.js";
import { WebhookReceiver } from "./receiver.js";
import { createTestCa, type TestCa } from "./tls.js";
import { ITEM, revokeAll, subscribe, subscribed, unsubscribe, webhookArgs } from "./webhooks.js";

const DAY = 24 * 60 * 60 * 1000;

describe("events/subscribe", () => {
  let net: Network;
  let ca: TestCa;
  let receiver: WebhookReceiver;
  let spare: WebhookReceiver;
  let untrusted: WebhookReceiver;

  beforeAll(async () => {
    ca = createTestCa();
    receiver = await WebhookReceiver.start({ tls: ca });
    spare = await WebhookReceiver.start({ tls: ca });
    untrusted = await WebhookReceiver.start({ tls: ca, untrusted: true });
    net = await Network.start([]);
    const env = { NODE_EXTRA_CA_CERTS: ca.caFile };
    await net.add("bob", { extraArgs: webhookArgs(), env });
    await net.add("carol", { extraArgs: webhookArgs({ unsafe: false }), env });
  });
  afterEach(async () => {
    for (const name of ["bob", "carol"]) await revokeAll(net.agent(name).daemon);
    receiver.reset();
    spare.reset();
  });
  afterAll(async () => {
    await net?.close();
    await Promise.all([receiver?.close(), spare?.close(), untrusted?.close()]);
    ca?.remove();
  });

  it("verifies the callback with a challenge signed by the new secret and grants a 24-hour lease", async () => {
    const { client } = net.agent("bob").mcp;
    const url = receiver.url("/hooks/in?key=abc");
    const secret = receiver.secret();
    const before = Date.now();
    const result = await subscribed(client, url, secret);
    const expectedId = `sub_${createHash("sha256")
      .update(JSON.stringify(["runtime", url, ITEM, {}]))
      .digest("hex")}`;
    expect(result).toMatchObject({ id: expectedId, cursor: null, truncated: false });
    expect(result.deliveryStatus).toBeUndefined();
    const refreshBefore = Date.parse(result.refreshBefore);
    expect(refreshBefore).toBeGreaterThanOrEqual(before + DAY - 1_000);
    expect(refreshBefore).toBeLessThanOrEqual(Date.now() + DAY);

    const [challenge] = receiver.challenges();
    expect(receiver.requests).toHaveLength(1);
    expect(challenge!.verifiedWith).toBe(secret);
    expect(challenge!.body).toEqual({ type: "verification", challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(challenge!.headers["webhook-id"]).toMatch(/^msg_verification_[A-Za-z0-9_-]+$/);
    expect(challenge!.headers["x-mcp-subscription-id"]).toBe(expectedId);
    expect(challenge!.headers["content-type"]).toBe("application/json");
    expect(challenge!.path).toBe("/hooks/in?key=abc");
    // The original name is kept for SNI and Host although the daemon dialled the checked address.
    expect(challenge!.servername).toBe("localhost");
    expect(challenge!.headers.host).toBe(`localhost:${receiver.port}`);
  });

  it("clamps ttlMs to [60 s, 24 h] and keeps the id on refresh, without a new challenge for the same secret", async () => {
    const { client } = net.agent("bob").mcp;
    const url = receiver.url();
    const secret = receiver.secret();
    // The granted lease, bounded by the clock before and after the call.
    const lease = async (ttlMs: unknown, granted: number) => {
      const before = Date.now();
      const result = await subscribed(client, url, secret, { ttlMs });
      const refreshBefore = Date.parse(result.refreshBefore);
      expect(refreshBefore).toBeGreaterThanOrEqual(before + granted);
      expect(refreshBefore).toBeLessThanOrEqual(Date.now() + granted);
      return result;
    };
    const short = await lease(1_000, 60_000);
    const long = await lease(2 * DAY, DAY);
    expect(long.id).toBe(short.id);
    expect(long.deliveryStatus).toEqual({ active: true, lastError: null });
    await lease(null, DAY);
    await lease(0, 60_000);
    await lease(3_600_000, 3_600_000);
    expect(receiver.challenges()).toHaveLength(1);
  });

  it("challenges a rotated secret again under the same id", async () => {
    const { client } = net.agent("bob").mcp;
    const owner = ownerClient(net.agent("bob").daemon);
    const url = receiver.url();
    const first = await subscribed(client, url, receiver.secret());
    const before = await owner.subscriptions.status.query({ id: first.id });
    const rotated = receiver.secret();
    const second = await subscribed(client, url, rotated);
    expect(second.id).toBe(first.id);
    expect(receiver.challenges()).toHaveLength(2);
    expect(receiver.challenges()[1]!.verifiedWith).toBe(rotated);
    const after = await owner.subscriptions.status.query({ id: first.id });
    expect(after.secretFingerprint).toMatch(/^[0-9a-f]{12}$/);
    expect(after.secretFingerprint).not.toBe(before.secretFingerprint);
    expect(after.secretFingerprint).toBe(createHash("sha256").update(rotated).digest("hex").slice(0, 12));
  });

  it("fails with CallbackEndpointError when the receiver does not pass the challenge", async () => {
    const { client } = net.agent("bob").mcp;
    const reasonOf = async (url: string) => {
      const outcome = await subscribe(client, url, receiver.secret());
      expect(outcome).toMatchObject({ ok: false, code: -32015 });
      return outcome.ok ? undefined : outcome.data.reason;
    };
    receiver.respond = () => ({ status: 200, body: JSON.stringify({ challenge: "not the nonce" }) });
    expect(await reasonOf(receiver.url())).toBe("challenge_failed");
    receiver.respond = () => ({ status: 200, body: "" });
    expect(await reasonOf(receiver.url())).toBe("challenge_failed");
    receiver.respond = (r) => ({ status: 500, body: JSON.stringify({ challenge: r.body.challenge }) });
    expect(await reasonOf(receiver.url())).toBe("challenge_failed");
    receiver.respond = () => ({ status: 307, headers: { location: spare.url() } });
    expect(await reasonOf(receiver.url())).toBe("challenge_failed");
    expect(spare.requests).toHaveLength(0);
    receiver.respond = () => ({ hang: true });
    expect(await reasonOf(receiver.url())).toBe("timeout");
    receiver.respond = (r) => ({ status: 200, body: JSON.stringify({ challenge: r.body.challenge }), trickleMs: 400 });
    expect(await reasonOf(receiver.url())).toBe("timeout");
    expect(await reasonOf(untrusted.url())).toBe("tls_error");
    await spare.close();
    expect(await reasonOf(spare.url())).toBe("connection_refused");
    spare = await WebhookReceiver.start({ tls: ca });
    // Nothing was registered and nothing owns the inbox.
    const { subscriptions } = await ownerClient(net.agent("bob").daemon).subscriptions.list.query();
    expect(subscriptions.filter((s) => s.state !== "revoked")).toEqual([]);
  });

  it("refuses the push event, unknown events, arguments, other modes, non-https URLs and bad secrets", async () => {
    const { client } = net.agent("carol").mcp;
    const secret = receiver.secret();
    const url = receiver.url();
    expect(await subscribe(client, url, secret, { name: "org.social-harness/inbox.pending" })).toMatchObject({
      ok: false,
      code: -32014,
      data: { feature: "deliveryMode", value: "webhook" },
    });
    expect(await subscribe(client, url, secret, { name: "org.example/nope" })).toMatchObject({
      ok: false,
      code: -32011,
      data: { kind: "event" },
    });
    expect(await subscribe(client, url, secret, { arguments: { sender: "alice" } })).toMatchObject({
      ok: false,
      code: -32602,
    });
    expect(await subscribe(client, url, secret, { delivery: { mode: "push", url, secret } })).toMatchObject({
      ok: false,
      code: -32014,
      data: { feature: "deliveryMode", value: "push" },
    });
    for (const bad of ["http://example.com/hook", "ftp://example.com/", "hook"]) {
      expect(await subscribe(client, bad, secret)).toMatchObject({ ok: false, code: -32602 });
    }
    for (const badSecret of [secret.slice(6), "whsec_c2hvcnQ=", `whsec_${"A".repeat(88)}`, "whsec_not base64"]) {
      expect(await subscribe(client, url, badSecret)).toMatchObject({ ok: false, code: -32602 });
    }
    expect(await subscribe(client, url, secret, { delivery: { url } })).toMatchObject({ ok: false, code: -32602 });
    expect(receiver.requests).toHaveLength(0);
  });

  it("refuses loopback and private callbacks unless --unsafe-allow-local-callbacks is on, and warns when it is", async () => {
    const carol = net.agent("carol").mcp.client;
    const secret = receiver.secret();
    for (const host of ["127.0.0.1", "[::1]", "10.0.0.7", "169.254.169.254", "[fd00::1]"]) {
      const outcome = await subscribe(carol, `https://${host}:${receiver.port}/hook`, secret);
      expect(outcome).toMatchObject({ ok: false, code: -32602, message: expect.stringContaining("publicly routable") });
    }
    // A name is checked when it is dialled: localhost resolves to loopback, so nothing connects.
    expect(await subscribe(carol, receiver.url(), secret)).toMatchObject({
      ok: false,
      code: -32015,
      data: { reason: "connection_refused" },
    });
    expect(receiver.requests).toHaveLength(0);

    const bob = net.agent("bob");
    await subscribed(bob.mcp.client, receiver.url("/hook", "127.0.0.1"), secret);
    const warnings = bob.daemon
      .stderr()
      .split("\n")
      .filter((line) => line.includes("--unsafe-allow-local-callbacks is on"));
    expect(warnings.length).toBeGreaterThanOrEqual(2);
    expect(warnings.every((line) => JSON.parse(line).level === 40)).toBe(true);
    expect(net.agent("carol").daemon.stderr()).not.toContain("--unsafe-allow-local-callbacks is on");
  });

  it("keys subscriptions by principal, so the owner token's callback is another subscription", async () => {
    const bob = net.agent("bob");
    const url = receiver.url();
    const runtime = await subscribed(bob.mcp.client, url, receiver.secret());
    const owner = await connect(bob.daemon.mcpUrl, bob.daemon.ownerToken);
    try {
      expect(await subscribe(owner.client, url, receiver.secret())).toMatchObject({
        ok: false,
        code: -32012,
        data: { owner: "webhook" },
      });
      expect(await unsubscribe(bob.mcp.client, url)).toMatchObject({ ok: true });
      const mine = await subscribed(owner.client, url, receiver.secret());
      expect(mine.id).not.toBe(runtime.id);
      const status = await ownerClient(bob.daemon).subscriptions.status.query({ id: mine.id });
      expect(status).toMatchObject({ principal: "owner", event: ITEM, state: "active" });
    } finally {
      await owner.close();
    }
  });

  it("unsubscribes by key, and answers NotFound for keys it does not hold", async () => {
    const { client } = net.agent("bob").mcp;
    const url = receiver.url("/bye");
    const { id } = await subscribed(client, url, receiver.secret());
    expect(await unsubscribe(client, url)).toMatchObject({ ok: true });
    expect(await ownerClient(net.agent("bob").daemon).subscriptions.status.query({ id })).toMatchObject({
      state: "revoked",
      revokedAt: expect.any(Number),
    });
    expect(await unsubscribe(client, url)).toMatchObject({ ok: false, code: -32011, data: { kind: "subscription" } });
    expect(await unsubscribe(client, receiver.url("/never"))).toMatchObject({ ok: false, code: -32011 });
  });

  it("persists the registration with its secret sealed, and keeps the id across a restart", async () => {
    const url = receiver.url("/persisted?token=routing-key");
    const secret = receiver.secret();
    const { id } = await subscribed(net.agent("bob").mcp.client, url, secret);
    const bob = await net.restart("bob");
    const owner = ownerClient(bob.daemon);
    const listed = await owner.subscriptions.list.query();
    expect(listed.subscriptions.filter((s) => s.state !== "revoked")).toEqual([
      expect.objectContaining({ id, state: "active", principal: "runtime" }),
    ]);
    const again = await subscribed(bob.mcp.client, url, secret);
    expect(again.id).toBe(id);

    const keyFile = path.join(bob.daemon.dataDir, "webhook.key");
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const db = new Database(path.join(bob.daemon.dataDir, "daemon.db"), { readonly: true });
    try {
      const row = db.prepare("SELECT secret, secret_fingerprint FROM webhook_subscriptions WHERE id = ?").get(id) as {
        secret: string;
        secret_fingerprint: string;
      };
      expect(row.secret).toMatch(/^enc:v1:/);
      expect(row.secret).not.toContain(secret.slice(6, 30));
    } finally {
      db.close();
    }
    // Neither the owner API nor the logs show the callback URL or the secret.
    const shown = JSON.stringify(listed) + JSON.stringify(await owner.subscriptions.status.query({ id }));
    for (const text of [shown, bob.daemon.stderr(), readFileSync(keyFile, "utf8")]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(6, 30));
      expect(text).not.toContain("routing-key");
    }
    expect(shown).not.toContain("/persisted");
  });
});

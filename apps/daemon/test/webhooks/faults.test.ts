/**
 * Receiver faults on real daemons: retries keep the exact event id and body with a fresh timestamp
 * and signature; timeouts, redirects (never followed) and slow answers; 410 and 413 suspend with a
 * terminal rejection that refresh, resume and restart cannot clear; and the non-terminal suspension
 * after 100 attempts over the suspension window (shortened by a documented test option).
 */
import { TRPCClientError } from "@trpc/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { acknowledgeAll } from "../harness/inbox.js";
import { eventually } from "../harness/mcp.js";
import { Network, readAll } from "../harness/network.js";
import { ownerClient } from "../harness/owner.js";
import { accept, WebhookReceiver, type Reply, type Responder } from "./receiver.js";
import { createTestCa, type TestCa } from "./tls.js";
import { revokeAll, subscribed, tokenOf, webhookArgs } from "./webhooks.js";

/** Answers challenges; plays `script` for deliveries in order, then accepts. */
function scripted(...script: Reply[]): Responder {
  let next = 0;
  return (request) => (request.isChallenge ? accept(request) : (script[next++] ?? { status: 200 }));
}

const SUSPEND_WINDOW_MS = 1_500;

describe("webhook receiver faults", () => {
  let net: Network;
  let ca: TestCa;
  let receiver: WebhookReceiver;
  let elsewhere: WebhookReceiver;

  beforeAll(async () => {
    ca = createTestCa();
    receiver = await WebhookReceiver.start({ tls: ca });
    elsewhere = await WebhookReceiver.start({ tls: ca });
    net = await Network.start(["alice"]);
    const env = { NODE_EXTRA_CA_CERTS: ca.caFile };
    await net.add("bob", {
      extraArgs: webhookArgs({ baseMs: 20, capMs: 50, timeoutMs: 800, windowMs: SUSPEND_WINDOW_MS }),
      env,
    });
    // Retries at least a second apart, so each attempt's timestamp is a new second.
    await net.add("carol", { extraArgs: webhookArgs({ baseMs: 2_000, capMs: 2_000 }), env });
  });
  afterEach(async () => {
    for (const name of ["bob", "carol"]) {
      await revokeAll(net.agent(name).daemon);
      await acknowledgeAll(net.agent(name));
    }
    receiver.reset();
    elsewhere.reset();
  });
  afterAll(async () => {
    await net?.close();
    await Promise.all([receiver?.close(), elsewhere?.close()]);
    ca?.remove();
  });

  it("retries with the exact event id and body bytes, a fresh timestamp and a fresh signature", async () => {
    const carol = net.agent("carol");
    const secret = receiver.secret();
    receiver.respond = scripted({ status: 500 }, { status: 503 }, { status: 429 });
    await subscribed(carol.mcp.client, receiver.url(), secret);
    await net.send("alice", "agent:carol", "retried");
    const attempts = await receiver.waitForDeliveries(4, 30_000);
    await eventually(async () => ((await readAll(carol)).length === 0 ? true : undefined));
    expect(new Set(attempts.map((a) => a.headers["webhook-id"])).size).toBe(1);
    expect(new Set(attempts.map((a) => a.raw.toString("hex"))).size).toBe(1);
    expect(attempts.every((a) => a.verifiedWith === secret)).toBe(true);
    const stamps = attempts.map((a) => Number(a.headers["webhook-timestamp"]));
    expect(stamps.every((t, i) => i === 0 || t > stamps[i - 1]!)).toBe(true);
    expect(new Set(attempts.map((a) => a.headers["webhook-signature"])).size).toBe(4);
    expect(receiver.deliveries()).toHaveLength(4);
  });

  it("retries a timeout and a redirect, never following the redirect, and takes a 2xx whose body is slow", async () => {
    const bob = net.agent("bob");
    receiver.respond = scripted(
      { hang: true },
      { status: 302, headers: { location: elsewhere.url("/moved") } },
      { status: 301, headers: { location: elsewhere.url("/moved") } },
      { delayMs: 1_500, status: 200 },
      { status: 200, body: '{"ok":true}'.repeat(20), trickleMs: 100 },
    );
    const { id } = await subscribed(bob.mcp.client, receiver.url(), receiver.secret());
    const seen = new Set<string>();
    const owner = ownerClient(bob.daemon);
    const watch = setInterval(() => {
      void owner.subscriptions.status.query({ id }).then(
        (s) => s.lastError !== null && seen.add(s.lastError),
        () => undefined,
      );
    }, 20);
    try {
      await net.send("alice", "agent:bob", "eventually");
      await receiver.waitForDeliveries(5);
      await eventually(async () => ((await readAll(bob)).length === 0 ? true : undefined));
    } finally {
      clearInterval(watch);
    }
    const attempts = receiver.deliveries();
    expect(attempts).toHaveLength(5);
    expect(new Set(attempts.map((a) => a.raw.toString("hex"))).size).toBe(1);
    expect(elsewhere.requests).toHaveLength(0);
    expect([...seen]).toEqual(expect.arrayContaining(["timeout", "redirect"]));
    expect(await owner.subscriptions.status.query({ id })).toMatchObject({
      delivered: 1,
      attempts: 0,
      lastError: null,
    });
  });

  it.each([410, 413])(
    "suspends on HTTP %i with a terminal rejection that refresh, resume and restart keep; revocation clears it",
    async (status) => {
      const secret = receiver.secret();
      receiver.respond = scripted({ status });
      const url = receiver.url(`/terminal-${status}`);
      const { id } = await subscribed(net.agent("bob").mcp.client, url, secret);
      await net.send("alice", "agent:bob", `rejected with ${status}`);
      const [rejected] = await receiver.waitForDeliveries(1);
      const terminal = {
        state: "suspended",
        terminalRejection: true,
        terminalStatus: status,
        lastError: "http_4xx",
        attempts: 1,
        nextAttemptAt: null,
      };
      await eventually(async () => {
        const s = await ownerClient(net.agent("bob").daemon).subscriptions.status.query({ id });
        return s.state === "suspended" ? s : undefined;
      });
      expect(await ownerClient(net.agent("bob").daemon).subscriptions.status.query({ id })).toMatchObject(terminal);

      const refreshed = await subscribed(net.agent("bob").mcp.client, url, secret);
      expect(refreshed).toMatchObject({ id, deliveryStatus: { active: false, lastError: "http_4xx" } });
      const resume = ownerClient(net.agent("bob").daemon).subscriptions.resume.mutate({ id });
      await expect(resume).rejects.toBeInstanceOf(TRPCClientError);
      await expect(resume).rejects.toMatchObject({
        message: expect.stringContaining(`HTTP ${status}`),
        data: { code: "PRECONDITION_FAILED" },
      });
      const bob = await net.restart("bob");
      const owner = ownerClient(bob.daemon);
      expect(await owner.subscriptions.status.query({ id })).toMatchObject(terminal);
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.deliveries()).toHaveLength(1);
      expect((await readAll(bob)).map((e) => e.deliveryToken)).toEqual([tokenOf(rejected!.body.eventId)]);

      await owner.subscriptions.revoke.mutate({ id });
      const again = await subscribed(bob.mcp.client, url, secret);
      expect(again.id).toBe(id);
      expect(await owner.subscriptions.status.query({ id })).toMatchObject({
        state: "active",
        terminalRejection: false,
      });
      const [, delivered] = await receiver.waitForDeliveries(2);
      expect(delivered!.raw.equals(rejected!.raw)).toBe(true);
      await eventually(async () => ((await readAll(bob)).length === 0 ? true : undefined));
    },
  );

  it("suspends after at least 100 attempts spanning the suspension window; refresh and resume lift it", async () => {
    const bob = net.agent("bob");
    const owner = ownerClient(bob.daemon);
    const url = receiver.url("/flaky");
    const secret = receiver.secret();
    receiver.respond = (r) => (r.isChallenge ? accept(r) : { status: 500 });
    const { id } = await subscribed(bob.mcp.client, url, secret);
    await net.send("alice", "agent:bob", "suspend me");
    const suspendedStatus = async () =>
      eventually(
        async () => {
          const s = await owner.subscriptions.status.query({ id });
          return s.state === "suspended" ? s : undefined;
        },
        60_000,
        "suspension",
      );
    const first = await suspendedStatus();
    expect(first).toMatchObject({ terminalRejection: false, lastError: "http_5xx", nextAttemptAt: null });
    expect(first.attempts).toBeGreaterThanOrEqual(100);
    const attempts = receiver.deliveries();
    expect(attempts).toHaveLength(first.attempts);
    expect(attempts.at(-1)!.at - attempts[0]!.at).toBeGreaterThanOrEqual(SUSPEND_WINDOW_MS - 50);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.deliveries()).toHaveLength(first.attempts);

    // A refresh lifts a suspension that is not terminal and starts a new failure window.
    const refreshed = await subscribed(bob.mcp.client, url, secret);
    expect(refreshed.deliveryStatus).toMatchObject({ active: true });
    const second = await suspendedStatus();
    expect(second.attempts).toBeGreaterThanOrEqual(100);

    receiver.respond = accept;
    expect(await owner.subscriptions.resume.mutate({ id })).toMatchObject({ state: "active", attempts: 0 });
    await eventually(async () => ((await readAll(bob)).length === 0 ? true : undefined));
    expect(new Set(receiver.deliveries().map((d) => d.headers["webhook-id"])).size).toBe(1);
  });
});

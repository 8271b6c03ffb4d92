/**
 * Webhooks across daemon restarts: a restart (clean or a crash) in the middle of a retry loses and
 * duplicates nothing and retries the same event id and body; collective recovery runs before
 * delivery, so the stored occurrence of a retired request is discarded while read_event still
 * returns the original item.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { acknowledgeAll } from "../harness/inbox.js";
import { eventually, tool } from "../harness/mcp.js";
import { Network, readAll } from "../harness/network.js";
import { ownerClient } from "../harness/owner.js";
import { accept, WebhookReceiver, type Received } from "./receiver.js";
import { createTestCa, type TestCa } from "./tls.js";
import { revokeAll, subscribed, tokenOf, webhookArgs } from "./webhooks.js";

const FORM = { type: "object", properties: { ok: { type: "boolean" } } };

describe("webhooks across restarts", () => {
  let net: Network;
  let ca: TestCa;
  let receiver: WebhookReceiver;
  /** Deliveries the receiver answered with 2xx. */
  let accepted: Received[];
  let accepting: boolean;

  beforeAll(async () => {
    ca = createTestCa();
    receiver = await WebhookReceiver.start({ tls: ca });
    net = await Network.start(["alice"]);
    await net.add("bob", {
      extraArgs: webhookArgs({ baseMs: 150, capMs: 300 }),
      env: { NODE_EXTRA_CA_CERTS: ca.caFile },
    });
  });
  afterEach(async () => {
    await revokeAll(net.agent("bob").daemon);
    await acknowledgeAll(net.agent("bob"));
    receiver.reset();
  });
  afterAll(async () => {
    await net?.close();
    await receiver?.close();
    ca?.remove();
  });

  function failUntilAccepting(): void {
    accepted = [];
    accepting = false;
    receiver.respond = (request) => {
      if (request.isChallenge) return accept(request);
      if (!accepting) return { status: 503 };
      accepted.push(request);
      return { status: 200 };
    };
  }

  it.each(["SIGTERM", "SIGKILL"] as const)(
    "retries the same event id and body after a %s restart mid-retry, losing and duplicating nothing",
    async (signal) => {
      failUntilAccepting();
      const secret = receiver.secret();
      const { id } = await subscribed(net.agent("bob").mcp.client, receiver.url(), secret);
      const texts = [`${signal} one`, `${signal} two`, `${signal} three`];
      for (const text of texts) await net.send("alice", "agent:bob", text);
      const tokens = (
        await eventually(async () => {
          const items = await readAll(net.agent("bob"));
          return items.length === 3 ? items : undefined;
        })
      ).map((e) => e.deliveryToken);
      await receiver.waitForDeliveries(3);

      await net.agent("bob").daemon.stop(signal);
      const before = receiver.deliveries();
      const bob = await net.restart("bob");
      await receiver.waitForDeliveries(before.length + 2);
      accepting = true;
      await eventually(async () => ((await readAll(bob)).length === 0 ? true : undefined));
      await new Promise((r) => setTimeout(r, 300));

      // Every item was accepted exactly once, in inbox order.
      expect(accepted.map((d) => tokenOf(d.body.eventId))).toEqual(tokens);
      expect(accepted.map((d) => d.body.data.item.message.content[0].text)).toEqual(texts);
      // The item in flight at the restart was retried after it under the same id, with the same bytes.
      const firstId = accepted[0]!.body.eventId as string;
      expect(new Set(before.map((d) => d.headers["webhook-id"]))).toEqual(new Set([firstId]));
      const first = receiver.deliveries().filter((d) => d.headers["webhook-id"] === firstId);
      expect(first.length).toBeGreaterThanOrEqual(before.length + 2);
      expect(new Set(first.map((d) => d.raw.toString("hex"))).size).toBe(1);
      expect(receiver.deliveries().every((d) => d.verifiedWith === secret)).toBe(true);
      expect(await ownerClient(bob.daemon).subscriptions.status.query({ id })).toMatchObject({
        state: "active",
        delivered: 3,
        attempts: 0,
      });
    },
  );

  it("discards the occurrence of a request retired at restart; read_event still returns the original", async () => {
    failUntilAccepting();
    await subscribed(net.agent("bob").mcp.client, receiver.url(), receiver.secret());
    const gather = JSON.stringify({ gather: "still there after a restart?", deadline: 120, requestedSchema: FORM });
    const { operationId } = await net.send("alice", "agent:bob", gather);
    const [attempt] = await receiver.waitForDeliveries(2);
    expect(attempt!.body.data.item).toMatchObject({ kind: "collectiveRequest", id: operationId });
    const requestEvent = attempt!.body.eventId as string;

    await net.agent("bob").daemon.stop();
    const restartedAt = Date.now();
    accepting = true;
    const bob = await net.restart("bob");
    const [failed] = await eventually(async () => (accepted.length > 0 ? accepted : undefined));
    expect(failed!.body.data.item).toMatchObject({ kind: "operationFailed", id: operationId });
    expect(failed!.body.eventId).not.toBe(requestEvent);
    await new Promise((r) => setTimeout(r, 300));
    const afterRestart = receiver.deliveries().filter((d) => d.at >= restartedAt);
    expect(afterRestart.map((d) => d.body.eventId)).toEqual([failed!.body.eventId]);
    expect(await readAll(bob)).toEqual([]);
    expect(await tool(bob.mcp.client, "read_event", { eventId: requestEvent })).toEqual({
      item: attempt!.body.data.item,
    });
  });
});

/**
 * Webhook delivery on real daemons to a real HTTPS receiver that verifies every request with the
 * standardwebhooks package: inbox order, one in flight, ids, the body, receipt retiring the item,
 * a receiver that reads the inbox before answering, the 256 KiB reference path, and revocation.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PushStream } from "../harness/events.js";
import { callTool, eventually, tool } from "../harness/mcp.js";
import { Network, readAll, type InboxItem } from "../harness/network.js";
import { ownerClient } from "../harness/owner.js";
import { WebhookReceiver, type Received } from "./receiver.js";
import { createTestCa, type TestCa } from "./tls.js";
import { ITEM, revokeAll, subscribed, tokenOf, webhookArgs } from "./webhooks.js";

const textOf = (delivery: Received): string => delivery.body.data.item.message.content[0].text;

describe("webhook delivery", () => {
  let net: Network;
  let ca: TestCa;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    ca = createTestCa();
    receiver = await WebhookReceiver.start({ tls: ca });
    net = await Network.start(["alice"]);
    await net.add("bob", { extraArgs: webhookArgs(), env: { NODE_EXTRA_CA_CERTS: ca.caFile } });
  });
  afterEach(async () => {
    await revokeAll(net.agent("bob").daemon);
    receiver.reset();
  });
  afterAll(async () => {
    await net?.close();
    await receiver?.close();
    ca?.remove();
  });

  it("delivers each item once, in inbox order, signed, with webhook-id = eventId = evt_ + the token", async () => {
    const bob = net.agent("bob");
    const secret = receiver.secret();
    const { id } = await subscribed(bob.mcp.client, receiver.url(), secret);
    // The receiver reads bob's inbox before it answers: callback I/O holds no lock on the inbox.
    const seen = new Map<string, InboxItem[]>();
    let inFlight = 0;
    let overlapped = false;
    receiver.respond = async (request) => {
      if (request.isChallenge) return { status: 200, body: JSON.stringify({ challenge: request.body.challenge }) };
      overlapped ||= ++inFlight > 1;
      seen.set(request.body.eventId, await readAll(bob));
      await new Promise((r) => setTimeout(r, 30));
      inFlight--;
      return { status: 200 };
    };
    const texts = ["first", "second", "third", "fourth"];
    for (const text of texts) await net.send("alice", "agent:bob", text);
    const deliveries = await receiver.waitForDeliveries(4);
    expect(overlapped).toBe(false);
    expect(deliveries.map(textOf)).toEqual(texts);
    const before = Math.floor(Date.now() / 1000);
    for (const delivery of deliveries) {
      const { eventId } = delivery.body;
      expect(delivery.verifiedWith).toBe(secret);
      expect(delivery.headers["webhook-id"]).toBe(eventId);
      expect(eventId).toMatch(/^evt_[A-Za-z0-9_-]{43}$/);
      expect(delivery.headers["x-mcp-subscription-id"]).toBe(id);
      expect(delivery.headers["content-type"]).toBe("application/json");
      expect(Math.abs(Number(delivery.headers["webhook-timestamp"]) - before)).toBeLessThan(30);
      expect(delivery.servername).toBe("localhost");
      expect(delivery.body).toEqual({
        eventId,
        name: ITEM,
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        data: { kind: "item", item: expect.objectContaining({ kind: "multicast" }) },
        cursor: null,
      });
      // The item was pending under the token the event id names while the receiver held it.
      const pending = seen.get(eventId)!;
      const entry = pending.find((e) => e.deliveryToken === tokenOf(eventId));
      expect(entry?.item).toEqual(delivery.body.data.item);
      expect(pending[0]!.deliveryToken).toBe(tokenOf(eventId));
      expect(await tool(bob.mcp.client, "read_event", { eventId })).toEqual({ item: delivery.body.data.item });
    }
    // Each receipt retired its item; nothing is offered twice and no reminder follows.
    await eventually(async () => ((await readAll(bob)).length === 0 ? true : undefined));
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.deliveries()).toHaveLength(4);
    const status = await ownerClient(bob.daemon).subscriptions.status.query({ id });
    expect(status).toMatchObject({ state: "active", delivered: 4, attempts: 0, lastError: null, inFlight: false });
    expect(
      await callTool(bob.mcp.client, "acknowledge_delivery", { deliveryToken: tokenOf(deliveries[0]!.body.eventId) }),
    ).toEqual({ ok: true, result: {} });
  });

  it("delivers items that were pending before the subscription, oldest first", async () => {
    const bob = net.agent("bob");
    for (const text of ["waiting 1", "waiting 2"]) await net.send("alice", "agent:bob", text);
    const pending = await eventually(async () => {
      const items = await readAll(bob);
      return items.length >= 2 ? items : undefined;
    });
    await subscribed(bob.mcp.client, receiver.url(), receiver.secret());
    const deliveries = await receiver.waitForDeliveries(2);
    expect(deliveries.map((d) => tokenOf(d.body.eventId))).toEqual(pending.map((e) => e.deliveryToken));
  });

  it("sends a reference above 256 KiB of envelope, which read_event resolves, and inlines what fits", async () => {
    const bob = net.agent("bob");
    await subscribed(bob.mcp.client, receiver.url(), receiver.secret());
    const large = "L".repeat(300 * 1024);
    const fits = "S".repeat(250 * 1024);
    await net.send("alice", "agent:bob", large);
    await net.send("alice", "agent:bob", fits);
    const [reference, inline] = await receiver.waitForDeliveries(2);
    expect(reference!.body.data).toEqual({ kind: "reference", itemKind: "multicast", bytes: expect.any(Number) });
    expect(reference!.body.data.bytes).toBeGreaterThan(262_144);
    expect(reference!.raw.length).toBeLessThan(1_024);
    expect(reference!.verifiedWith).toBeDefined();
    const read = (await tool(bob.mcp.client, "read_event", { eventId: reference!.body.eventId })) as any;
    expect(read.item.message.content[0].text).toBe(large);
    expect(inline!.body.data.kind).toBe("item");
    expect(inline!.raw.length).toBeLessThanOrEqual(262_144);
    expect(textOf(inline!)).toBe(fits);
  });

  it("keeps pending items through revocation, where read_event still answers and the inbox is free again", async () => {
    const bob = net.agent("bob");
    receiver.respond = (r) =>
      r.isChallenge ? { status: 200, body: JSON.stringify({ challenge: r.body.challenge }) } : { status: 503 };
    const { id } = await subscribed(bob.mcp.client, receiver.url(), receiver.secret());
    await net.send("alice", "agent:bob", "stays pending");
    const [attempt] = await receiver.waitForDeliveries(2);
    const owner = ownerClient(bob.daemon);
    expect(await owner.subscriptions.status.query({ id })).toMatchObject({ lastError: "http_5xx", inFlight: true });
    expect(await owner.subscriptions.revoke.mutate({ id })).toMatchObject({ state: "revoked", inFlight: false });
    const attempts = receiver.deliveries().length;
    await new Promise((r) => setTimeout(r, 400));
    expect(receiver.deliveries()).toHaveLength(attempts);

    const items = await readAll(bob);
    expect(items.map((e) => e.deliveryToken)).toEqual([tokenOf(attempt!.body.eventId)]);
    expect(await tool(bob.mcp.client, "read_event", { eventId: attempt!.body.eventId })).toEqual({
      item: attempt!.body.data.item,
    });
    // The revoked registration no longer owns the inbox: a push stream may open.
    const stream = new PushStream(bob.mcp.client);
    await stream.count(1);
    stream.close();
    await stream.done;
  });
});

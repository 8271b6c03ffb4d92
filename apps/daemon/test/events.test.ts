import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PushStream } from "./harness/events.js";
import { connect, eventually, tool } from "./harness/mcp.js";
import { Network, readAll } from "./harness/network.js";

describe("events/list and the inbox.pending push stream", () => {
  let net: Network;

  beforeAll(async () => {
    net = await Network.start(["alice"]);
    await net.add("bob", { extraArgs: ["--event-heartbeat-ms", "400"] });
  });
  afterAll(() => net?.close());

  it("lists the push event and the webhook event with their schemas", async () => {
    const { client } = net.agent("bob").mcp;
    const { z } = await import("zod");
    const list = (await client.request({ method: "events/list", params: {} }, z.looseObject({}))) as {
      events: { name: string; delivery: string[] }[];
    };
    expect(list.events.map((e) => [e.name, e.delivery])).toEqual([
      ["org.social-harness/inbox.pending", ["push"]],
      ["org.social-harness/inbox.item", ["webhook"]],
    ]);
    for (const event of list.events)
      expect(event).toMatchObject({ inputSchema: expect.any(Object), payloadSchema: expect.any(Object) });
  });

  it("activates first, then sends only {pendingCount} on each change, with the subscription id on every notification", async () => {
    const bob = net.agent("bob");
    const stream = new PushStream(bob.mcp.client);
    await stream.count(0);
    expect(stream.notifications[0]!.method).toBe("notifications/events/active");
    expect(stream.notifications[0]!.params).toMatchObject({ cursor: null, truncated: false });
    await net.send("alice", "agent:bob", "ping");
    const event = await stream.count(1);
    expect(Object.keys(event.params.data)).toEqual(["pendingCount"]);
    expect(event.params).toMatchObject({
      name: "org.social-harness/inbox.pending",
      cursor: null,
      timestamp: expect.any(String),
    });
    const [item] = await readAll(bob);
    await tool(bob.mcp.client, "acknowledge_delivery", { deliveryToken: item!.deliveryToken });
    await stream.count(0);
    await eventually(async () => (stream.of("heartbeat").length >= 2 ? true : undefined));
    const ids = new Set(
      stream.notifications.map((n) => JSON.stringify(n.params._meta["io.modelcontextprotocol/subscriptionId"])),
    );
    expect(ids.size).toBe(1);
    stream.close();
    await stream.done;
  });

  it("lets a newer stream take over, terminating the older one", async () => {
    const bob = net.agent("bob");
    const first = new PushStream(bob.mcp.client);
    await eventually(async () => (first.of("active").length > 0 ? true : undefined));
    const other = await connect(bob.daemon.mcpUrl, bob.daemon.runtimeToken);
    const second = new PushStream(other.client);
    await eventually(async () => (first.of("terminated").length > 0 ? true : undefined));
    expect(first.of("terminated")[0]!.params.error).toMatchObject({ code: -32012 });
    // The older stream's end releases nothing: the newer one still receives events.
    await net.send("alice", "agent:bob", "for the newer stream");
    await second.count(1);
    second.close();
    await other.close();
  });

  it("refuses unknown events and push for the webhook-only event", async () => {
    const { client } = net.agent("bob").mcp;
    const { z } = await import("zod");
    await expect(
      client.request({ method: "events/stream", params: { name: "nope" } }, z.looseObject({})),
    ).rejects.toMatchObject({ code: -32011 });
    await expect(
      client.request({ method: "events/stream", params: { name: "org.social-harness/inbox.item" } }, z.looseObject({})),
    ).rejects.toMatchObject({ code: -32014 });
    await expect(
      client.request(
        { method: "events/stream", params: { name: "org.social-harness/inbox.pending", arguments: { x: 1 } } },
        z.looseObject({}),
      ),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it("cancels the stream when the client closes it, on the legacy era too", async () => {
    const bob = net.agent("bob");
    const legacy = await connect(bob.daemon.mcpUrl, bob.daemon.runtimeToken, "legacy");
    const stream = new PushStream(legacy.client);
    await eventually(async () => (stream.of("active").length > 0 ? true : undefined));
    stream.close();
    await stream.done;
    const heartbeats = stream.of("heartbeat").length;
    // A new stream can take the inbox, and the cancelled one sends nothing more.
    const fresh = new PushStream(bob.mcp.client);
    await eventually(async () => (fresh.of("heartbeat").length >= 2 ? true : undefined));
    expect(stream.of("heartbeat").length).toBe(heartbeats);
    expect(stream.of("terminated")).toEqual([]);
    fresh.close();
    await legacy.close();
  });
});

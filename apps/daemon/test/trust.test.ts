import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./harness/mcp.js";
import { Network, readAll, waitForItems } from "./harness/network.js";
import { ownerClient } from "./harness/owner.js";

describe("trust", () => {
  let net: Network;

  beforeAll(async () => {
    net = await Network.start(["alice", "carol"]);
    await net.add("bob", { trust: "allowlist" });
  });
  afterAll(() => net?.close());

  it("holds items from untrusted senders for the owner and never delivers them", async () => {
    await net.send("alice", "agent:bob", "first from alice");
    await net.send("carol", "agent:bob", "from carol");
    await net.send("alice", "agent:bob", "second from alice");
    const owner = ownerClient(net.agent("bob").daemon);
    const { holds } = await eventually(async () => {
      const result = await owner.holds.list.query();
      return result.holds.length === 3 ? result : undefined;
    });
    expect(holds.map((h) => [h.sender, h.item.kind === "multicast" ? h.item.message.content[0] : undefined])).toEqual([
      ["alice", { type: "text", text: "first from alice" }],
      ["carol", { type: "text", text: "from carol" }],
      ["alice", { type: "text", text: "second from alice" }],
    ]);
    expect(holds[0]!.reason).toContain("not on the trust list");
    expect(await readAll(net.agent("bob"))).toEqual([]);
  });

  it("refuses the owner API without the owner token", async () => {
    const runtime = ownerClient(net.agent("bob").daemon, net.agent("bob").daemon.runtimeToken);
    await expect(runtime.trust.list.query()).rejects.toThrow(/owner token/);
  });

  it("releases a sender's held items into the inbox in their original order when trusted", async () => {
    const owner = ownerClient(net.agent("bob").daemon);
    expect(await owner.trust.add.mutate({ name: "alice" })).toEqual({ released: 2, registered: true });
    const items = await waitForItems(net.agent("bob"), 2);
    expect(items.map((e) => e.item.message.content[0].text)).toEqual(["first from alice", "second from alice"]);
    expect((await owner.holds.list.query()).holds.map((h) => h.sender)).toEqual(["carol"]);
  });

  it("delivers later items from a trusted sender directly", async () => {
    await net.send("alice", "agent:bob", "third from alice");
    await waitForItems(net.agent("bob"), 3);
  });

  it("keeps the trust list across a restart, and holds again after untrusting", async () => {
    await net.restart("bob");
    const owner = ownerClient(net.agent("bob").daemon);
    expect((await owner.trust.list.query()).trusted.map((t) => t.name)).toEqual(["alice"]);
    expect(await owner.trust.remove.mutate({ name: "alice" })).toEqual({ removed: true });
    await net.send("alice", "agent:bob", "after untrust");
    await eventually(async () => ((await owner.holds.list.query()).holds.length === 2 ? true : undefined));
    expect((await readAll(net.agent("bob"))).map((e) => e.item.message.content[0].text)).not.toContain("after untrust");
  });
});

/**
 * Delivery projection on real daemons (seed 000 "Delivery projection", seed 003 "Inbound items"):
 * direct and group message shapes from certified records, content without its collective part,
 * no self-delivery, each post offered once in commit order with each conversation's order kept,
 * and offline catch-up creating the deliveries a stopped recipient missed.
 */
import { isId } from "@social-harness/protocol";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { acknowledgeAll, textOf } from "../harness/inbox.js";
import { Network, waitForItems, type InboxItem } from "../harness/network.js";

const NAMES = ["alice", "bob", "carol", "dave"] as const;
const GROUP = "group:alice,bob,carol,dave";
const MEMBERS = NAMES.map((n) => `agent:${n}`);

describe("delivery projection", () => {
  let net: Network;

  beforeAll(async () => {
    net = await Network.start(NAMES);
  });
  afterAll(() => net?.close());
  beforeEach(async () => {
    for (const name of NAMES) await acknowledgeAll(net.agent(name));
  });

  const from = (entries: InboxItem[], sender: string) =>
    entries.filter((e) => e.item.message.sender === `agent:${sender}`).map(textOf);

  it("projects a direct message relative to its reader, without the collective part", async () => {
    await net.send("alice", "agent:bob", "hello bob");
    await net.send("bob", "agent:alice", "hello alice");
    const [atBob] = await waitForItems(net.agent("bob"), 1);
    const [atAlice] = await waitForItems(net.agent("alice"), 1);
    // Seed 000: kind "direct", author-scoped postId, the perspective-relative agent: address,
    // sender and content; a multicast's content is the certified post without its collective part.
    expect(atBob!.item).toEqual({
      kind: "multicast",
      message: {
        kind: "direct",
        postId: expect.any(String),
        address: "agent:alice",
        sender: "agent:alice",
        content: [{ type: "text", text: "hello bob" }],
      },
    });
    expect(atAlice!.item).toEqual({
      kind: "multicast",
      message: {
        kind: "direct",
        postId: expect.any(String),
        address: "agent:bob",
        sender: "agent:bob",
        content: [{ type: "text", text: "hello alice" }],
      },
    });
    for (const entry of [atBob!, atAlice!]) expect(isId("post", entry.item.message.postId)).toBe(true);
  });

  it("projects a group message with the canonical group, its sender and the complete ordered membership", async () => {
    // The sender names the group in any order and without itself; every reader sees the canonical form.
    await net.send("dave", "group:carol,alice,bob", "hello group");
    const seen = await Promise.all(["alice", "bob", "carol"].map((n) => waitForItems(net.agent(n), 1)));
    const postIds = new Set<string>();
    for (const [entry] of seen) {
      expect(entry!.item).toEqual({
        kind: "multicast",
        message: {
          kind: "group",
          postId: expect.any(String),
          address: GROUP,
          sender: "agent:dave",
          members: MEMBERS,
          content: [{ type: "text", text: "hello group" }],
        },
      });
      postIds.add(entry!.item.message.postId);
    }
    expect(postIds.size).toBe(1);
  });

  it("never offers the author its own post", async () => {
    await net.send("alice", "agent:bob", "mine, to bob");
    await net.send("alice", GROUP, "mine, to the group");
    // Replies in both conversations come after alice's posts in each, so once they are offered,
    // alice's own posts would have been too.
    await waitForItems(net.agent("bob"), 2);
    await net.send("bob", "agent:alice", "reply, direct");
    await net.send("bob", GROUP, "reply, group");
    const entries = await waitForItems(net.agent("alice"), 2);
    expect(entries.map(textOf).sort()).toEqual(["reply, direct", "reply, group"]);
    expect(from(entries, "alice")).toEqual([]);
  });

  it("offers interleaved senders' posts once each, keeping every conversation's order", async () => {
    const senders = ["alice", "carol", "dave"];
    const count = 15;
    await Promise.all(
      senders.map(async (sender) => {
        for (let i = 0; i < count; i++) await net.send(sender, "agent:bob", `${sender} ${i}`);
      }),
    );
    const entries = await waitForItems(net.agent("bob"), senders.length * count);
    expect(entries).toHaveLength(senders.length * count);
    expect(new Set(entries.map((e) => e.item.message.postId)).size).toBe(entries.length);
    for (const sender of senders) {
      expect(from(entries, sender)).toEqual(Array.from({ length: count }, (_, i) => `${sender} ${i}`));
    }
  });

  it("offers a group conversation in one order to every member", async () => {
    const senders = ["alice", "bob", "carol"];
    const count = 8;
    await Promise.all(
      senders.map(async (sender) => {
        for (let i = 0; i < count; i++) await net.send(sender, GROUP, `${sender} ${i}`);
      }),
    );
    // dave sent nothing, so dave's inbox is the whole conversation in the order it was certified.
    const order = (await waitForItems(net.agent("dave"), senders.length * count)).map(textOf);
    for (const sender of senders) {
      expect(order.filter((t) => t.startsWith(sender))).toEqual(
        Array.from({ length: count }, (_, i) => `${sender} ${i}`),
      );
      const own = (t: string) => t.startsWith(sender);
      const entries = await waitForItems(net.agent(sender), (senders.length - 1) * count);
      expect(entries.map(textOf)).toEqual(order.filter((t) => !own(t)));
    }
  });

  it("creates the missing pending deliveries when an offline recipient catches up", async () => {
    // The group exists before bob goes away; a cold group would need bob's co-signature.
    await net.send("dave", GROUP, "warm");
    await waitForItems(net.agent("bob"), 1);
    await acknowledgeAll(net.agent("bob"));
    await net.stop("bob");
    for (let i = 0; i < 4; i++) await net.send("alice", "agent:bob", `alice ${i}`);
    for (let i = 0; i < 3; i++) await net.send("carol", "agent:bob", `carol ${i}`);
    for (let i = 0; i < 2; i++) await net.send("dave", GROUP, `dave ${i}`);
    await net.restart("bob");
    const entries = await waitForItems(net.agent("bob"), 9);
    expect(entries).toHaveLength(9);
    expect(from(entries, "alice")).toEqual(["alice 0", "alice 1", "alice 2", "alice 3"]);
    expect(from(entries, "carol")).toEqual(["carol 0", "carol 1", "carol 2"]);
    expect(from(entries, "dave")).toEqual(["dave 0", "dave 1"]);
    expect(entries.filter((e) => e.item.message.kind === "group").map(textOf)).toEqual(["dave 0", "dave 1"]);
  });
});

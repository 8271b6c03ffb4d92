/**
 * The durable inbox through its MCP tools (seed 000 "MCP Events and inbox", "Delivery handoff";
 * SPEC §7): canonical delivery tokens, pages bounded by 50 items and 2 MiB, continuations that keep
 * the first page's upper insertion bound, reads that never acknowledge, exact and idempotent
 * acknowledgment, and items that keep payload and token across a daemon restart.
 */
import { isId, mintId } from "@social-harness/protocol";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { acknowledgeAll, readPage, readPages, textOf } from "../harness/inbox.js";
import { callTool, tool } from "../harness/mcp.js";
import { Network, readAll, waitForItems, type InboxItem } from "../harness/network.js";
import { modernRequest } from "../harness/raw-mcp.js";

const SENDERS = ["alice", "carol", "dave"] as const;
const KiB = 1024;
const MiB = 1024 * KiB;

describe("the inbox", () => {
  let net: Network;

  beforeAll(async () => {
    net = await Network.start(["bob", ...SENDERS]);
  });
  afterAll(() => net?.close());
  beforeEach(() => acknowledgeAll(net.agent("bob")));

  const bob = () => net.agent("bob");
  const acknowledge = (deliveryToken: string) => tool(bob().mcp.client, "acknowledge_delivery", { deliveryToken });

  /** Sends `count` messages to bob, spread over the senders, each sender in order; waits for all. */
  async function fill(count: number, label: string): Promise<InboxItem[]> {
    const before = (await readAll(bob())).length;
    await Promise.all(
      SENDERS.map(async (sender, s) => {
        for (let i = s; i < count; i += SENDERS.length) await net.send(sender, "agent:bob", `${label} ${i}`);
      }),
    );
    return waitForItems(bob(), before + count, 60_000);
  }

  it("binds each item to a canonical DeliveryToken of its own", async () => {
    const items = await fill(6, "token");
    for (const { deliveryToken } of items) {
      // Seed 000: ^dlv_[A-Za-z0-9_-]{43}$, 32 random bytes as canonical unpadded base64url.
      expect(deliveryToken).toMatch(/^dlv_[A-Za-z0-9_-]{43}$/);
      expect(isId("delivery", deliveryToken)).toBe(true);
    }
    expect(new Set(items.map((e) => e.deliveryToken)).size).toBe(items.length);
  });

  it("pages at most 50 items: 120 pending items read as 50, 50 and 20", async () => {
    const all = await fill(120, "paged");
    const pages = await readPages(bob());
    expect(pages.map((p) => p.items.length)).toEqual([50, 50, 20]);
    expect(pages.map((p) => p.nextCursor !== undefined)).toEqual([true, true, false]);
    expect(pages.flatMap((p) => p.items)).toEqual(all);
    expect(new Set(all.map(textOf)).size).toBe(120);
  });

  it("pages at most 2 MiB of stored item content", async () => {
    const big = (n: number) => `${n}`.padEnd(900 * KiB, "x");
    for (const n of [1, 2, 3, 4, 5]) await net.send("alice", "agent:bob", big(n));
    await waitForItems(bob(), 5);
    const pages = await readPages(bob());
    // Two ~900 KiB items fit in 2 MiB; a third would exceed it, so it opens the next page.
    expect(pages.map((p) => p.items.map((e) => textOf(e)[0]))).toEqual([["1", "2"], ["3", "4"], ["5"]]);
    for (const page of pages) {
      expect(page.items.reduce((sum, e) => sum + JSON.stringify(e.item).length, 0)).toBeLessThanOrEqual(2 * MiB);
    }
  });

  it("hands out an item larger than 2 MiB alone on its page", async () => {
    // 400,000 U+0001 characters are 400 KB of certified content but 2.4 MB of stored JSON.
    const huge = "\u0001".repeat(400_000);
    for (const text of ["before", huge, "after"]) await net.send("alice", "agent:bob", text);
    await waitForItems(bob(), 3);
    const pages = await readPages(bob());
    expect(pages.map((p) => p.items.map((e) => (textOf(e) === huge ? "huge" : textOf(e))))).toEqual([
      ["before"],
      ["huge"],
      ["after"],
    ]);
  });

  it("keeps the first page's upper insertion bound: later arrivals belong to the next read", async () => {
    const first = await fill(60, "bounded");
    const page1 = await readPage(bob());
    expect(page1.items).toEqual(first.slice(0, 50));
    for (let i = 0; i < 5; i++) await net.send("alice", "agent:bob", `late ${i}`);
    await waitForItems(bob(), 65);
    const page2 = await readPage(bob(), page1.nextCursor);
    expect(page2).toEqual({ items: first.slice(50) });
    const fresh = (await readPages(bob())).flatMap((p) => p.items);
    expect(fresh.slice(0, 60)).toEqual(first);
    expect(fresh.slice(60).map(textOf)).toEqual(["late 0", "late 1", "late 2", "late 3", "late 4"]);
  });

  it("lets acknowledged items disappear while a page is traversed", async () => {
    const all = await fill(60, "vanishing");
    const secondPage = all.slice(50);
    const page1 = await readPage(bob());
    expect(page1.items).toEqual(all.slice(0, 50));
    const acknowledged = secondPage.filter((_, i) => i % 2 === 0);
    for (const entry of acknowledged) expect(await acknowledge(entry.deliveryToken)).toEqual({});
    // Acknowledging an item already handed out does not disturb the continuation either.
    expect(await acknowledge(page1.items[0]!.deliveryToken)).toEqual({});
    const page2 = await readPage(bob(), page1.nextCursor);
    expect(page2).toEqual({ items: secondPage.filter((_, i) => i % 2 === 1) });
  });

  it("never acknowledges on read: two reads return the same items and tokens", async () => {
    await fill(3, "reread");
    const first = await readPage(bob());
    const second = await readPage(bob());
    expect(first.items).toHaveLength(3);
    expect(second).toEqual(first);
  });

  it("acknowledges with exactly {} and stays idempotent for an acknowledged token", async () => {
    const [entry, other] = await fill(2, "ack");
    expect(await callTool(bob().mcp.client, "acknowledge_delivery", { deliveryToken: entry!.deliveryToken })).toEqual({
      ok: true,
      result: {},
    });
    expect(await acknowledge(entry!.deliveryToken)).toEqual({});
    expect(await readAll(bob())).toEqual([other]);
    expect(await acknowledge(entry!.deliveryToken)).toEqual({});
  });

  it("fails an unknown well-formed token with unknown-delivery", async () => {
    const outcome = await callTool(bob().mcp.client, "acknowledge_delivery", { deliveryToken: mintId("delivery") });
    expect(outcome).toMatchObject({ ok: false, code: -32030, data: { reason: "unknown-delivery" } });
  });

  it("replays one stable delivery after a lost acknowledgment: the same token and payload, byte for byte", async () => {
    await fill(1, "stable");
    const entryText = async () => {
      const answer = await modernRequest(bob().daemon.mcpUrl, bob().daemon.runtimeToken, "tools/call", {
        name: "read_inbox",
        arguments: {},
      });
      const items = (answer.response?.result?.structuredContent as { items: unknown[] }).items;
      expect(items).toHaveLength(1);
      return JSON.stringify(items[0]);
    };
    const first = await entryText();
    // The host handled the item and crashed before its acknowledgment reached the daemon, and
    // the daemon restarted too: the same delivery is offered again, unchanged.
    await net.restart("bob");
    expect(await entryText()).toBe(first);
    const { deliveryToken } = JSON.parse(first) as { deliveryToken: string };
    const event = await tool(bob().mcp.client, "read_event", { eventId: `evt_${deliveryToken.slice(4)}` });
    expect(JSON.stringify(event.item)).toBe(JSON.stringify((JSON.parse(first) as { item: unknown }).item));
  });

  it("keeps each item's payload and token across a daemon restart, and acknowledgments too", async () => {
    const items = await fill(4, "durable");
    await acknowledge(items[0]!.deliveryToken);
    await net.restart("bob");
    expect(await readAll(bob())).toEqual(items.slice(1));
    // The tombstone survives: acknowledging again is still {} rather than unknown-delivery.
    expect(await acknowledge(items[0]!.deliveryToken)).toEqual({});
  });
});

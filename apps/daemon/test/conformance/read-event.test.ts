/**
 * read_event({eventId}) on a real daemon (seed 000 "Webhook consumer", SPEC §4, §9): the event
 * id is the delivery token with evt_ in place of dlv_; it returns {item} from the retained
 * immutable inbox row, also after acknowledgment and restart, and never acknowledges. Canonical
 * base64url validation rejects aliases as InvalidParams; a missing id fails with unknown-event.
 */
import { eventIdOf, mintId } from "@social-harness/protocol";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { acknowledgeAll, aliasOf } from "../harness/inbox.js";
import { callTool, tool } from "../harness/mcp.js";
import { Network, readAll, waitForItems, type InboxItem } from "../harness/network.js";

describe("read_event", () => {
  let net: Network;

  beforeAll(async () => {
    net = await Network.start(["alice", "bob"]);
  });
  afterAll(() => net?.close());
  beforeEach(() => acknowledgeAll(net.agent("bob")));

  const bob = () => net.agent("bob");
  const readEvent = (eventId: unknown) => callTool(bob().mcp.client, "read_event", { eventId });

  async function deliver(text: string): Promise<InboxItem> {
    await net.send("alice", "agent:bob", text);
    const [entry] = await waitForItems(bob(), 1);
    return entry!;
  }

  it("returns {item} for evt_ followed by the delivery token's 43 characters", async () => {
    const entry = await deliver("by event id");
    const eventId = `evt_${entry.deliveryToken.slice("dlv_".length)}`;
    expect(eventId).toBe(eventIdOf(entry.deliveryToken));
    // No firewall runs here, so there is no guidance to carry.
    expect(await readEvent(eventId)).toEqual({ ok: true, result: { item: entry.item } });
  });

  it("refuses a non-canonical alias of an event id as InvalidParams", async () => {
    const entry = await deliver("aliased");
    const eventId = eventIdOf(entry.deliveryToken);
    const alias = aliasOf(eventId);
    expect(alias).not.toBe(eventId);
    expect(Buffer.from(alias.slice(4), "base64url")).toEqual(Buffer.from(eventId.slice(4), "base64url"));
    // Seed 000: canonical base64url validation rejects aliases; malformed ids are InvalidParams.
    expect(await readEvent(alias)).toMatchObject({ ok: false, code: -32602 });
  });

  it.each([
    ["a delivery token", () => mintId("delivery")],
    ["a short id", () => "evt_abc"],
    ["a long id", () => `${eventIdOf(mintId("delivery"))}A`],
    ["a padded id", () => `${eventIdOf(mintId("delivery"))}=`],
    ["standard base64 characters", () => `evt_${"+".repeat(42)}A`],
    ["an empty string", () => ""],
    ["a number", () => 42],
  ])("refuses %s as InvalidParams", async (_what, eventId) => {
    expect(await readEvent(eventId())).toMatchObject({ ok: false, code: -32602 });
  });

  it("fails a well-formed id that names no item with unknown-event", async () => {
    const outcome = await readEvent(eventIdOf(mintId("delivery")));
    expect(outcome).toMatchObject({ ok: false, code: -32030, data: { reason: "unknown-event" } });
  });

  it("never acknowledges: the item stays in read_inbox", async () => {
    const entry = await deliver("still pending");
    await readEvent(eventIdOf(entry.deliveryToken));
    await readEvent(eventIdOf(entry.deliveryToken));
    expect(await readAll(bob())).toEqual([entry]);
  });

  it("returns the retained item after acknowledgment and after a restart", async () => {
    const acknowledged = await deliver("acknowledged, then read");
    await tool(bob().mcp.client, "acknowledge_delivery", { deliveryToken: acknowledged.deliveryToken });
    const pending = await deliver("pending across the restart");
    expect(await readEvent(eventIdOf(acknowledged.deliveryToken))).toEqual({
      ok: true,
      result: { item: acknowledged.item },
    });
    await net.restart("bob");
    for (const entry of [acknowledged, pending]) {
      expect(await readEvent(eventIdOf(entry.deliveryToken))).toEqual({ ok: true, result: { item: entry.item } });
    }
    expect(await readAll(bob())).toEqual([pending]);
  });
});

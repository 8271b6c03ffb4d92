import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, tool } from "../harness/mcp.js";
import { Network, readAll, waitFor } from "../harness/network.js";

const FORM = { type: "object", properties: { ok: { type: "boolean" } } };
const gather = (question: string, deadline: number) =>
  JSON.stringify({ gather: question, deadline, requestedSchema: FORM });

describe("collective state across restarts", () => {
  let net: Network;

  beforeAll(async () => {
    net = await Network.start(["alice", "bob"]);
  });
  afterAll(() => net?.close());

  it("retires an unread request whose context was lost, explains it, and never rebinds its token", async () => {
    const acked = await net.send("alice", "agent:bob", gather("acknowledged before the restart?", 120));
    const [ackedItem] = await waitFor(net.agent("bob"), (e) => e.item.id === acked.operationId);
    await tool(net.agent("bob").mcp.client, "acknowledge_delivery", { deliveryToken: ackedItem!.deliveryToken });
    const unread = await net.send("alice", "agent:bob", gather("unread at the restart?", 120));
    const [unreadItem] = await waitFor(net.agent("bob"), (e) => e.item.id === unread.operationId);

    const bob = await net.restart("bob");
    const items = await readAll(bob);
    expect(items.map((e) => e.deliveryToken)).not.toContain(unreadItem!.deliveryToken);
    const failures = items.filter((e) => e.item.kind === "operationFailed");
    expect(failures.map((e) => e.item)).toEqual([
      {
        kind: "operationFailed",
        id: unread.operationId,
        to: "agent:alice",
        error: expect.stringMatching(/restarted.*"unread at the restart\?"/),
      },
    ]);
    expect(failures[0]!.deliveryToken).not.toBe(unreadItem!.deliveryToken);
    // The original item is still readable under its event id, and its token stays bound to it.
    const eventId = `evt_${unreadItem!.deliveryToken.slice(4)}`;
    expect(await tool(bob.mcp.client, "read_event", { eventId })).toEqual({ item: unreadItem!.item });
    expect(await tool(bob.mcp.client, "acknowledge_delivery", { deliveryToken: unreadItem!.deliveryToken })).toEqual(
      {},
    );
    // Neither request can be answered any more; the acknowledged one did not come back.
    expect(items.map((e) => e.item.id)).not.toContain(acked.operationId);
    expect(
      await callTool(bob.mcp.client, "send_message", { to: "agent:alice", text: '{"action":"decline"}' }),
    ).toMatchObject({
      ok: false,
      data: { reason: "collective-failed", failure: { kind: "no-open-request" } },
    });
  });

  it("classifies a fresh request normally after a restart", async () => {
    const fresh = await net.send("alice", "agent:bob", gather("after the restart?", 60));
    await waitFor(net.agent("bob"), (e) => e.item.id === fresh.operationId);
    expect(await net.send("bob", "agent:alice", '{"action":"accept","content":{"ok":true}}')).toEqual({
      operationId: fresh.operationId,
    });
  });

  it("fails an operation the requester's restart interrupted, with exactly one ending", async () => {
    const cut = await net.send("alice", "agent:bob", gather("interrupted?", 4));
    const [request] = await waitFor(net.agent("bob"), (e) => e.item.id === cut.operationId);
    const alice = await net.restart("alice");
    const [failed] = await waitFor(alice, (e) => e.item.kind === "operationFailed" && e.item.id === cut.operationId);
    expect(failed!.item).toEqual({
      kind: "operationFailed",
      id: cut.operationId,
      to: "agent:bob",
      error: expect.stringContaining("restarted"),
    });
    // Past the deadline no result follows the failure: the operation ended once.
    const deadlineAt = request!.item.deadlineAt as number;
    await new Promise((r) => setTimeout(r, Math.max(0, deadlineAt - Date.now()) + 1_000));
    expect((await readAll(alice)).filter((e) => e.item.id === cut.operationId)).toHaveLength(1);
  });

  it("retires an answered request silently, before and after its deadline (defect 13)", async () => {
    const asked = [];
    for (const [question, deadline] of [
      ["answered, then closed?", 3],
      ["answered, still open?", 120],
    ] as const) {
      const { operationId } = await net.send("alice", "agent:bob", gather(question, deadline));
      asked.push({ operationId });
      await waitFor(net.agent("bob"), (e) => e.item.id === operationId);
      expect(await net.send("bob", "agent:alice", '{"action":"accept","content":{"ok":true}}')).toEqual({
        operationId,
      });
      await waitFor(net.agent("alice"), (e) => e.item.kind === "collectiveResult" && e.item.id === operationId);
    }
    const [closed, open] = asked as [{ operationId: unknown }, { operationId: unknown }];
    const [request] = await waitFor(net.agent("bob"), (e) => e.item.id === closed.operationId);
    await new Promise((r) => setTimeout(r, Math.max(0, (request!.item.deadlineAt as number) - Date.now()) + 500));
    const bob = await net.restart("bob");
    const items = await readAll(bob);
    // Neither request comes back, and no operationFailed speaks of either.
    const ids = [closed.operationId, open.operationId];
    expect(items.filter((e) => ids.includes(e.item.id as string))).toEqual([]);
  });
});

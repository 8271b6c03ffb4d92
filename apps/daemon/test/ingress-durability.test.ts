/**
 * Which pushed records cost the recipient an fsync, on real processes: a batch that admits an item
 * into the inbox (a delivery token) commits durably, one whose records are all consumed (a peer's
 * answer in an all_gather) does not, since the router pushes it again after a power loss. Counted
 * with the daemon's `social_harness_daemon_wal_fsyncs_total`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./harness/mcp.js";
import { Network, waitForKind } from "./harness/network.js";
import { ownerClient } from "./harness/owner.js";

const GROUP = "group:alice,bob,carol,dave";
const SCHEMA = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] };

async function fsyncsOf(net: Network, name: string): Promise<number> {
  const { daemon } = net.agent(name);
  const response = await fetch(daemon.mcpUrl.replace(/\/mcp$/, "/metrics"), {
    headers: { authorization: `Bearer ${daemon.ownerToken}` },
  });
  const line = (await response.text()).split("\n").find((l) => l.startsWith("social_harness_daemon_wal_fsyncs_total "));
  expect(line, "the daemon exports social_harness_daemon_wal_fsyncs_total").toBeDefined();
  return Number(line!.split(" ")[1]);
}

/** Whether `name` stores a record by `author` carrying a collective part of `op` (undefined while not). */
async function holds(net: Network, name: string, author: string, op: string): Promise<true | undefined> {
  const { records } = await ownerClient(net.agent(name).daemon).history.records.query({
    conversation: GROUP,
    limit: 50,
  });
  const found = records.some(
    (r) => r.author === author && r.content.some((p) => p.type === "collective" && (p as { op?: string }).op === op),
  );
  return found || undefined;
}

describe("durable commits at ingress", () => {
  let net: Network;
  beforeAll(async () => {
    net = await Network.start(["alice", "bob", "carol", "dave"]);
  });
  afterAll(() => net?.close());

  it("fsyncs for an admitted item and not for a consumed peer answer", async () => {
    const question = JSON.stringify({ all_gather: "ready?", deadline: 60, requestedSchema: SCHEMA });
    await net.send("alice", "group:bob,carol,dave", question);
    for (const name of ["bob", "carol", "dave"]) await waitForKind(net.agent(name), "collectiveRequest");

    // Carol answers; her own bind fsyncs. Then bob's answer reaches her, and is consumed there.
    await net.send("carol", GROUP, '{"action":"accept","content":{"ok":true}}');
    await eventually(() => holds(net, "carol", "agent:carol", "answer"), 20_000, "carol's own answer");
    const beforeAnswer = await fsyncsOf(net, "carol");
    await net.send("bob", GROUP, '{"action":"accept","content":{"ok":false}}');
    await eventually(() => holds(net, "carol", "agent:bob", "answer"), 20_000, "bob's answer at carol");
    expect(await fsyncsOf(net, "carol")).toBe(beforeAnswer);

    // A direct message is admitted with a delivery token: it is on disk before anyone is told.
    await net.send("alice", "agent:carol", "a direct message");
    await waitForKind(net.agent("carol"), "multicast");
    expect(await fsyncsOf(net, "carol")).toBeGreaterThan(beforeAnswer);
  });
});

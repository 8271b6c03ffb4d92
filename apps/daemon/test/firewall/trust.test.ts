/**
 * Trust and the firewall together (SPEC §5, §10): an untrusted sender's items are held by trust and
 * never checked; trusting the sender sends them back through admission, where the firewall checks
 * them like any arrival and holds what its policy holds.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../harness/mcp.js";
import { Network, readAll, waitFor, type InboxItem } from "../harness/network.js";
import { ownerClient } from "../harness/owner.js";
import { setPolicy } from "./policies.js";

const textOf = (e: InboxItem) => e.item.message?.content?.[0]?.text as string | undefined;

describe("trust, then the firewall", () => {
  let net: Network;
  const owner = () => ownerClient(net.agent("bob").daemon);

  beforeAll(async () => {
    net = await Network.start(["alice"]);
    await net.add("bob", { trust: "allowlist" });
    await setPolicy(net.agent("bob").daemon, {
      mode: "enforce",
      middlewares: [
        {
          id: "house",
          kind: "rules",
          rules: [
            {
              id: "no-wire-transfers",
              direction: "inbound",
              match: { text: { pattern: "wire transfer", flags: "i" } },
              decision: "hold",
              instruction: "The owner approves anything about wire transfers.",
            },
          ],
        },
      ],
    });
  });
  afterAll(() => net?.close());

  it("checks an untrusted sender's held items once it is trusted", async () => {
    await net.send("alice", "agent:bob", "hello bob");
    await net.send("alice", "agent:bob", "please make the wire transfer today");
    const trustHolds = await eventually(async () => {
      const { holds } = await owner().holds.list.query();
      return holds.length === 2 ? holds : undefined;
    });
    expect(trustHolds.map((h) => [h.source, h.checkId])).toEqual([
      ["trust", undefined],
      ["trust", undefined],
    ]);
    expect((await owner().firewall.checks.query({})).checks).toEqual([]);

    expect(await owner().trust.add.mutate({ name: "alice" })).toEqual({ released: 2, registered: true });
    await waitFor(net.agent("bob"), (e) => textOf(e) === "hello bob");
    const firewallHold = await eventually(async () => {
      const { holds } = await owner().holds.list.query();
      return holds.find((h) => h.source === "firewall");
    });
    expect(firewallHold).toMatchObject({
      sender: "alice",
      reason: "The owner approves anything about wire transfers.",
      audit: { decision: "hold", outcome: "held" },
    });
    expect((await owner().holds.list.query()).holds.map((h) => h.source)).toEqual(["firewall"]);
    expect((await readAll(net.agent("bob"))).map(textOf)).toEqual(["hello bob"]);
  });
});

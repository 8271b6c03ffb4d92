import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool } from "./harness/mcp.js";
import { Network, readAll, waitForItems } from "./harness/network.js";

describe("groups", () => {
  let net: Network;

  beforeAll(async () => {
    net = await Network.start(["alice", "bob", "carol", "dave"]);
  });
  afterAll(() => net?.close());

  it("creates the group on the first send with a co-signed genesis and delivers group messages", async () => {
    expect(await net.send("alice", "group:carol,bob", "hello group")).toEqual({});
    for (const name of ["bob", "carol"]) {
      const [entry] = await waitForItems(net.agent(name), 1);
      expect(entry!.item).toEqual({
        kind: "multicast",
        message: {
          kind: "group",
          postId: expect.stringMatching(/^pst_/),
          address: "group:alice,bob,carol",
          sender: "agent:alice",
          members: ["agent:alice", "agent:bob", "agent:carol"],
          content: [{ type: "text", text: "hello group" }],
        },
      });
    }
    expect(await readAll(net.agent("alice"))).toEqual([]);
  });

  it("reuses the group for later sends from any member, whatever the address order", async () => {
    expect(await net.send("bob", "group:alice,carol,bob", "second")).toEqual({});
    const [fromBob] = (await waitForItems(net.agent("alice"), 1)).filter((e) => e.item.message.sender === "agent:bob");
    expect(fromBob!.item.message.address).toBe("group:alice,bob,carol");
  });

  it("refuses a cold group with an offline member as certification-unavailable naming it", async () => {
    await net.stop("dave");
    const outcome = await callTool(net.agent("alice").mcp.client, "send_message", { to: "group:bob,dave", text: "x" });
    expect(outcome).toMatchObject({ ok: false, code: -32030, data: { reason: "certification-unavailable" } });
    expect(!outcome.ok && (outcome.data as { detail: string }).detail).toContain("dave");
  });
});

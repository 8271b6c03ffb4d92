import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, eventually } from "../harness/mcp.js";
import { Network, readAll, waitForKind } from "../harness/network.js";
import { ownerClient } from "../harness/owner.js";

const ETA = { type: "object", properties: { eta: { type: "integer", minimum: 0 } }, required: ["eta"] };
const gather = (question: string, deadline: number) =>
  JSON.stringify({ gather: question, deadline, requestedSchema: ETA });

describe("collective requests held for an untrusted sender", () => {
  let net: Network;

  beforeAll(async () => {
    net = await Network.start(["alice", "carol"]);
    await net.add("bob", { trust: "allowlist" });
  });
  afterAll(() => net?.close());

  const heldCount = async (count: number) => {
    const owner = ownerClient(net.agent("bob").daemon);
    await eventually(async () => ((await owner.holds.list.query()).holds.length === count ? true : undefined));
  };

  it("can be answered once trust.add releases them before their deadline", async () => {
    const { operationId } = await net.send("alice", "agent:bob", gather("ETA, once trusted?", 60));
    await heldCount(1);
    expect(await readAll(net.agent("bob"))).toEqual([]);
    expect(await ownerClient(net.agent("bob").daemon).trust.add.mutate({ name: "alice" })).toEqual({
      released: 1,
      registered: true,
    });
    const [request] = await waitForKind(net.agent("bob"), "collectiveRequest");
    expect(request!.item).toMatchObject({ kind: "collectiveRequest", id: operationId, from: "agent:alice" });
    expect(await net.send("bob", "agent:alice", '{"action":"accept","content":{"eta":4}}')).toEqual({ operationId });
    const [result] = await waitForKind(net.agent("alice"), "collectiveResult", 1, 70_000);
    expect(result!.item.outcomes).toEqual([
      { member: "agent:bob", outcome: { kind: "answered", content: { eta: 4 } } },
    ]);
  });

  it("never look answerable once released after their deadline", async () => {
    const { operationId } = await net.send("carol", "agent:bob", gather("ETA, too late?", 1));
    await heldCount(1);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await ownerClient(net.agent("bob").daemon).trust.add.mutate({ name: "carol" })).toEqual({
      released: 1,
      registered: true,
    });
    const [failed] = await waitForKind(net.agent("bob"), "operationFailed");
    expect(failed!.item).toEqual({
      kind: "operationFailed",
      id: operationId,
      to: "agent:carol",
      error: expect.stringContaining("held until after its deadline"),
    });
    const requests = (await readAll(net.agent("bob"))).filter(
      (e) => e.item.kind === "collectiveRequest" && e.item.id === operationId,
    );
    expect(requests).toEqual([]);
    expect(
      await callTool(net.agent("bob").mcp.client, "send_message", {
        to: "agent:carol",
        text: '{"action":"accept","content":{"eta":1}}',
      }),
    ).toMatchObject({ ok: false, data: { reason: "collective-failed", failure: { kind: "no-open-request" } } });
  });
});

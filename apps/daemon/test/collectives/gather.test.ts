import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, tool } from "../harness/mcp.js";
import { Network, readAll, waitForKind, type Agent, type InboxItem } from "../harness/network.js";
import { ownerClient } from "../harness/owner.js";

const ETA = { type: "object", properties: { eta: { type: "integer", minimum: 0 } }, required: ["eta"] };
const gather = (question: string, deadline: number) =>
  JSON.stringify({ gather: question, deadline, requestedSchema: ETA });

async function itemsOfKind(agent: Agent, kind: string): Promise<InboxItem[]> {
  return (await readAll(agent)).filter((e) => e.item.kind === kind);
}

describe("gather on real daemons", () => {
  let net: Network;

  beforeAll(async () => {
    net = await Network.start(["alice", "bob", "carol", "dave"]);
  });
  afterAll(() => net?.close());

  it("runs end to end on three daemons", async () => {
    const { operationId } = await net.send("alice", "group:bob,carol", gather("Three-daemon check: ETA?", 4));
    expect(operationId).toMatch(/^col_[A-Za-z0-9_-]{43}$/);
    await waitForKind(net.agent("bob"), "collectiveRequest");
    await waitForKind(net.agent("carol"), "collectiveRequest");
    expect(await net.send("bob", "agent:alice", '{"action":"accept","content":{"eta":3}}')).toEqual({ operationId });
    const [result] = await waitForKind(net.agent("alice"), "collectiveResult");
    expect(result!.item).toEqual({
      kind: "collectiveResult",
      op: "gather",
      id: operationId,
      to: "group:alice,bob,carol",
      question: "Three-daemon check: ETA?",
      outcomes: [
        { member: "agent:bob", outcome: { kind: "answered", content: { eta: 3 } } },
        { member: "agent:carol", outcome: { kind: "no-answer" } },
      ],
    });
    await tool(net.agent("alice").mcp.client, "acknowledge_delivery", { deliveryToken: result!.deliveryToken });
    for (const name of ["bob", "carol"]) {
      for (const entry of await itemsOfKind(net.agent(name), "collectiveRequest")) {
        await tool(net.agent(name).mcp.client, "acknowledge_delivery", { deliveryToken: entry.deliveryToken });
      }
    }
  });

  it("asks each member in its direct conversation, counts an answer, a decline and silence until the deadline", async () => {
    const started = Date.now();
    const { operationId } = await net.send("alice", "group:dave,carol,bob", gather("What is your ETA in minutes?", 5));
    const requests = await Promise.all(
      ["bob", "carol", "dave"].map((n) => waitForKind(net.agent(n), "collectiveRequest")),
    );
    for (const [i, name] of ["bob", "carol", "dave"].entries()) {
      expect(requests[i]![0]!.item).toEqual({
        kind: "collectiveRequest",
        op: "gather",
        id: operationId,
        postId: expect.stringMatching(/^pst_/),
        from: "agent:alice",
        to: "agent:alice",
        question: "What is your ETA in minutes?",
        requestedSchema: ETA,
        deadlineAt: expect.any(Number),
      });
      void name;
    }
    const deadlineAt = requests[0]![0]!.item.deadlineAt as number;
    expect(deadlineAt).toBeGreaterThanOrEqual(started + 5000);
    expect(await net.send("bob", "agent:alice", '{"action":"accept","content":{"eta":5}}')).toEqual({ operationId });
    expect(await net.send("carol", "agent:alice", '{"action":"decline"}')).toEqual({ operationId });
    const [result] = await waitForKind(net.agent("alice"), "collectiveResult");
    expect(Date.now()).toBeGreaterThanOrEqual(deadlineAt);
    expect(result!.item).toEqual({
      kind: "collectiveResult",
      op: "gather",
      id: operationId,
      to: "group:alice,bob,carol,dave",
      question: "What is your ETA in minutes?",
      outcomes: [
        { member: "agent:bob", outcome: { kind: "answered", content: { eta: 5 } } },
        { member: "agent:carol", outcome: { kind: "declined" } },
        { member: "agent:dave", outcome: { kind: "no-answer" } },
      ],
    });
    // The result goes to the requester only, and no group conversation was created.
    for (const name of ["bob", "carol", "dave"])
      expect(await itemsOfKind(net.agent(name), "collectiveResult")).toEqual([]);
    const conversations = await ownerClient(net.agent("alice").daemon).history.conversations.query();
    expect(conversations.conversations.map((c) => c.conversation).filter((c) => c.startsWith("group:"))).toEqual([]);
    // The silent member's request is no longer open after the deadline.
    const late = await callTool(net.agent("dave").mcp.client, "send_message", {
      to: "agent:alice",
      text: '{"action":"decline"}',
    });
    expect(late).toMatchObject({
      ok: false,
      code: -32030,
      data: { reason: "collective-failed", failure: { kind: "no-open-request" } },
    });
    for (const name of ["alice", "bob", "carol", "dave"]) {
      for (const entry of await readAll(net.agent(name))) {
        await tool(net.agent(name).mcp.client, "acknowledge_delivery", { deliveryToken: entry.deliveryToken });
      }
    }
  });

  it("refuses an unknown member before any post, naming it", async () => {
    const outcome = await callTool(net.agent("alice").mcp.client, "send_message", {
      to: "group:bob,zed",
      text: gather("anyone?", 30),
    });
    expect(outcome).toMatchObject({
      ok: false,
      code: -32030,
      data: {
        reason: "collective-failed",
        id: expect.stringMatching(/^col_/),
        failure: { kind: "members-unreachable", members: [{ member: "agent:zed", reason: "unknown-agent" }] },
      },
    });
    expect(await itemsOfKind(net.agent("bob"), "collectiveRequest")).toEqual([]);
  });

  it("with failureDelivery inbound, completes the call and puts the failure in the inbox", async () => {
    const result = await net.send("alice", "group:bob,zed", gather("anyone?", 30), {
      "org.social-harness/send": { failureDelivery: "inbound" },
    });
    expect(result).toEqual({ operationId: expect.stringMatching(/^col_/) });
    const [failed] = await waitForKind(net.agent("alice"), "operationFailed");
    expect(failed!.item).toEqual({
      kind: "operationFailed",
      id: result.operationId,
      to: "group:alice,bob,zed",
      error: expect.stringContaining("zed"),
    });
    await tool(net.agent("alice").mcp.client, "acknowledge_delivery", { deliveryToken: failed!.deliveryToken });
  });

  it("refuses an invalid requestedSchema before anything is sent, naming the property", async () => {
    const text = JSON.stringify({
      gather: "q",
      deadline: 30,
      requestedSchema: { type: "object", properties: { where: { type: "object" } } },
    });
    const outcome = await callTool(net.agent("alice").mcp.client, "send_message", { to: "agent:bob", text });
    expect(outcome).toMatchObject({ ok: false, data: { reason: "content-invalid" } });
    expect(!outcome.ok && (outcome.data as { detail: string }).detail).toContain("requestedSchema.properties.where");
  });

  it("matches an answer to the one open request, refusing none and several, and validates it before sending", async () => {
    const answersOfBob = async () => {
      const { records } = await ownerClient(net.agent("bob").daemon).history.records.query({
        conversation: "direct:alice,bob",
        limit: 200,
      });
      return records.filter(
        (r) => r.author === "agent:bob" && r.content.some((p) => p.type === "collective" && p.op === "answer"),
      ).length;
    };
    const answersBefore = await answersOfBob();
    expect(
      await callTool(net.agent("bob").mcp.client, "send_message", { to: "agent:alice", text: '{"action":"decline"}' }),
    ).toMatchObject({
      ok: false,
      data: { reason: "collective-failed", failure: { kind: "no-open-request" } },
    });
    const first = await net.send("alice", "agent:bob", gather("first?", 20));
    await waitForKind(net.agent("bob"), "collectiveRequest", 1);
    expect(
      await callTool(net.agent("bob").mcp.client, "send_message", {
        to: "agent:alice",
        text: '{"action":"accept","content":{"eta":"soon"}}',
      }),
    ).toMatchObject({
      ok: false,
      data: { reason: "content-invalid", detail: expect.stringContaining("eta") },
    });
    const second = await net.send("alice", "agent:bob", gather("second?", 20));
    await waitForKind(net.agent("bob"), "collectiveRequest", 2);
    const several = await callTool(net.agent("bob").mcp.client, "send_message", {
      to: "agent:alice",
      text: '{"action":"decline"}',
    });
    expect(several).toMatchObject({
      ok: false,
      data: { reason: "collective-failed", failure: { kind: "several-open-requests" } },
    });
    expect(!several.ok && (several.data as { failure: { requests: string[] } }).failure.requests.sort()).toEqual(
      [first.operationId, second.operationId].sort(),
    );
    // Nothing was sent: bob's certified history holds no new answer of his.
    expect(await answersOfBob()).toBe(answersBefore);
  });
});

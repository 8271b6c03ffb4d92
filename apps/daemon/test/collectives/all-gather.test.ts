import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PushStream } from "../harness/events.js";
import { callTool, tool } from "../harness/mcp.js";
import { Network, readAll, waitForKind } from "../harness/network.js";
import { ownerClient } from "../harness/owner.js";

const FORM = {
  type: "object",
  properties: {
    slot: {
      type: "string",
      oneOf: [
        { const: "am", title: "Morning" },
        { const: "pm", title: "Afternoon" },
      ],
    },
    note: { type: "string", maxLength: 40 },
  },
  required: ["slot"],
};
const allGather = (question: string, deadline: number) =>
  JSON.stringify({ all_gather: question, deadline, requestedSchema: FORM });
const GROUP = "group:alice,bob,carol,dave";

describe("all_gather on real daemons", () => {
  let net: Network;

  beforeAll(async () => {
    net = await Network.start(["alice", "bob", "carol", "dave"]);
  });
  afterAll(() => net?.close());

  it("gives a requester and three members identical results, with a silent member reported as no-answer", async () => {
    // The requester's push stream is told of its own result like every member's.
    const stream = new PushStream(net.agent("alice").mcp.client);
    await stream.count(0);
    const { operationId } = await net.send(
      "alice",
      "group:bob,carol,dave",
      allGather("Which slot works for the review?", 5),
    );
    expect(operationId).toMatch(/^col_/);
    for (const name of ["bob", "carol", "dave"]) {
      const [request] = await waitForKind(net.agent(name), "collectiveRequest");
      expect(request!.item).toMatchObject({
        op: "all_gather",
        id: operationId,
        from: "agent:alice",
        to: GROUP,
        requestedSchema: FORM,
      });
    }
    expect(await net.send("bob", GROUP, '{"action":"accept","content":{"slot":"pm","note":"after lunch"}}')).toEqual({
      operationId,
    });
    expect(await net.send("carol", GROUP, '{"action":"decline"}')).toEqual({ operationId });
    const results = await Promise.all(
      ["alice", "bob", "carol", "dave"].map((n) => waitForKind(net.agent(n), "collectiveResult")),
    );
    const expected = {
      kind: "collectiveResult",
      op: "all_gather",
      id: operationId,
      to: GROUP,
      question: "Which slot works for the review?",
      outcomes: [
        { member: "agent:bob", outcome: { kind: "answered", content: { slot: "pm", note: "after lunch" } } },
        { member: "agent:carol", outcome: { kind: "declined" } },
        { member: "agent:dave", outcome: { kind: "no-answer" } },
      ],
    };
    for (const [entry] of results) expect(entry!.item).toEqual(expected);
    await stream.count(1);
    stream.close();
    await stream.done;
    // The certified close lists the record hash of each counted answer (null for silence), and
    // every member stores that same close.
    const histories = await Promise.all(
      ["alice", "bob", "carol", "dave"].map(async (name) => {
        const { records } = await ownerClient(net.agent(name).daemon).history.records.query({
          conversation: GROUP,
          limit: 200,
        });
        return records;
      }),
    );
    const collectiveOf = (r: (typeof histories)[number][number]) =>
      r.content.find((p) => p.type === "collective") as Record<string, any> | undefined;
    const answerHash = (member: string) =>
      histories[0]!.find(
        (r) => r.author === member && collectiveOf(r)?.op === "answer" && collectiveOf(r)?.id === operationId,
      )?.recordHash;
    const close = histories[0]!.find((r) => collectiveOf(r)?.op === "close" && collectiveOf(r)?.id === operationId);
    expect(close?.author).toBe("agent:alice");
    expect(collectiveOf(close!)!.answers).toEqual([
      { member: "bob", answer: answerHash("agent:bob") },
      { member: "carol", answer: answerHash("agent:carol") },
      { member: "dave", answer: null },
    ]);
    expect(answerHash("agent:bob")).toMatch(/^rec_/);
    for (const records of histories) expect(records.map((r) => r.recordHash)).toContain(close!.recordHash);
    // Peer answers in the group conversation are consumed, never delivered.
    for (const name of ["alice", "bob", "carol", "dave"]) {
      const kinds = (await readAll(net.agent(name))).map((e) => e.item.kind);
      expect(kinds.filter((k) => k === "multicast")).toEqual([]);
      for (const entry of await readAll(net.agent(name))) {
        await tool(net.agent(name).mcp.client, "acknowledge_delivery", { deliveryToken: entry.deliveryToken });
      }
    }
  });

  it("records a request that arrives up to an hour past its deadline for its close", async () => {
    await net.send("alice", GROUP, "everyone is here");
    await net.stop("dave");
    const { operationId } = await net.send("alice", "group:bob,carol,dave", allGather("While dave is away?", 3));
    await waitForKind(net.agent("bob"), "collectiveRequest");
    await net.send("bob", GROUP, '{"action":"accept","content":{"slot":"am"}}');
    const [aliceResult] = await waitForKind(net.agent("alice"), "collectiveResult");
    const dave = await net.restart("dave");
    const [daveResult] = await waitForKind(dave, "collectiveResult");
    expect(daveResult!.item).toEqual(aliceResult!.item);
    expect(daveResult!.item).toMatchObject({
      id: operationId,
      outcomes: [
        { member: "agent:bob" },
        { member: "agent:carol" },
        { member: "agent:dave", outcome: { kind: "no-answer" } },
      ],
    });
    // The late request itself was consumed, never offered: its deadline had passed.
    expect(
      (await readAll(dave)).filter((e) => e.item.kind === "collectiveRequest" && e.item.id === operationId),
    ).toEqual([]);
    for (const name of ["alice", "bob", "carol", "dave"]) {
      for (const entry of await readAll(net.agent(name))) {
        await tool(net.agent(name).mcp.client, "acknowledge_delivery", { deliveryToken: entry.deliveryToken });
      }
    }
  });

  it("with failureDelivery inbound, an unmatched answer completes the call and its failure reaches the inbox", async () => {
    const inbound = { "org.social-harness/send": { failureDelivery: "inbound" } };
    const result = await net.send("bob", GROUP, '{"action":"decline"}', inbound);
    expect(result).toEqual({ operationId: expect.stringMatching(/^col_/) });
    const [failed] = await waitForKind(net.agent("bob"), "operationFailed");
    expect(failed!.item).toEqual({
      kind: "operationFailed",
      id: result.operationId,
      to: GROUP,
      error: expect.stringContaining("no request is open"),
    });
  });

  it("refuses an agent address and a group naming one other agent as membership-invalid", async () => {
    for (const to of ["agent:bob", "group:bob"]) {
      const outcome = await callTool(net.agent("alice").mcp.client, "send_message", { to, text: allGather("q", 30) });
      expect(outcome).toMatchObject({ ok: false, code: -32030, data: { reason: "membership-invalid" } });
    }
  });

  it("fails a cold group with an offline member, naming every member with the post's reason", async () => {
    await net.add("erin");
    await net.stop("erin");
    const outcome = await callTool(net.agent("alice").mcp.client, "send_message", {
      to: "group:bob,erin",
      text: allGather("cold?", 30),
    });
    expect(outcome).toMatchObject({
      ok: false,
      data: { reason: "collective-failed", failure: { kind: "members-unreachable" } },
    });
    const members = !outcome.ok
      ? (outcome.data as { failure: { members: { member: string; reason: string }[] } }).failure.members
      : [];
    // The same form as a gather's: the bare reason, and what happened in its own field.
    expect(members).toEqual(
      ["agent:bob", "agent:erin"].map((member) => ({
        member,
        reason: "certification-unavailable",
        detail: expect.stringMatching(/erin/),
      })),
    );
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeRouter } from "../harness/fake-router.js";
import { callTool, connect, eventually, tool, type Connected } from "../harness/mcp.js";
import { readAll } from "../harness/network.js";
import { DaemonProcess, removeDirs } from "../harness/processes.js";

const ETA = { type: "object", properties: { eta: { type: "integer", minimum: 0 } }, required: ["eta"] };
const gather = (question: string, deadline: number) =>
  JSON.stringify({ gather: question, deadline, requestedSchema: ETA });

describe("the requester's side of a gather, against a hand-driven router", () => {
  let router: FakeRouter;
  let alice: DaemonProcess;
  let mcp: Connected;

  beforeAll(async () => {
    router = await FakeRouter.start();
    for (const name of ["bob", "carol", "dave", "erin", "frank"]) router.agent(name);
    alice = await DaemonProcess.start({
      name: "alice",
      router: router.url,
      extraArgs: ["--collective-wait-ms", "800"],
    });
    await router.authenticated();
    mcp = await connect(alice.mcpUrl, alice.runtimeToken);
  });

  afterAll(async () => {
    await mcp?.close();
    await alice?.stop();
    await router?.close();
    removeDirs(alice.dataDir);
  });

  const results = async () => (await readAll({ daemon: alice, mcp })).filter((e) => e.item.kind === "collectiveResult");
  const answer = (member: string, id: string, response: object) =>
    router.pushNext(member, `direct:alice,${member}`, [{ type: "collective", op: "answer", id, response } as never]);

  it("makes a refused member no-answer, keeps each first answer, validates answers and ignores late ones", async () => {
    router.policy = ({ conv }) =>
      conv === "direct:alice,carol" ? { action: "refuse", reason: "unknown-agent" } : { action: "certify" };
    const { operationId } = await tool(mcp.client, "send_message", {
      to: "group:bob,carol,dave",
      text: gather("ETA?", 3),
    });
    expect(operationId).toMatch(/^col_/);
    answer("bob", operationId as string, { action: "accept", content: { eta: "soon" } });
    answer("bob", operationId as string, { action: "accept", content: { eta: 4 } });
    answer("dave", operationId as string, { action: "accept", content: { eta: 7 } });
    const [result] = await eventually(async () => {
      const found = await results();
      return found.length > 0 ? found : undefined;
    });
    expect(result!.item.outcomes).toEqual([
      { member: "agent:bob", outcome: { kind: "invalid", reason: "eta must be a number" } },
      { member: "agent:carol", outcome: { kind: "no-answer" } },
      { member: "agent:dave", outcome: { kind: "answered", content: { eta: 7 } } },
    ]);
    // An answer after the result changes nothing: exactly one result per operation.
    answer("carol", operationId as string, { action: "decline" });
    await eventually(async () =>
      alice.stderr().includes("consumed an answer for no open operation") ? true : undefined,
    );
    expect(await results()).toHaveLength(1);
    await tool(mcp.client, "acknowledge_delivery", { deliveryToken: result!.deliveryToken });
  });

  it("fails with members-unreachable naming every member only when every post was refused", async () => {
    router.policy = () => ({ action: "refuse", reason: "unknown-agent", detail: "gone" });
    const outcome = await callTool(mcp.client, "send_message", { to: "group:carol,erin", text: gather("anyone?", 30) });
    expect(outcome).toMatchObject({
      ok: false,
      data: {
        reason: "collective-failed",
        failure: {
          kind: "members-unreachable",
          members: [
            { member: "agent:carol", reason: "unknown-agent", detail: "gone" },
            { member: "agent:erin", reason: "unknown-agent", detail: "gone" },
          ],
        },
      },
    });
    expect(await results()).toEqual([]);
  });

  it("keeps a post certifying past the send wait going, and counts that member's answer", async () => {
    router.policy = ({ conv }) =>
      conv === "direct:alice,frank" ? { action: "certify", delayMs: 2_000 } : { action: "certify" };
    const started = Date.now();
    const { operationId } = await tool(mcp.client, "send_message", {
      to: "group:erin,frank",
      text: gather("slow?", 6),
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    await eventually(async () => (router.certified.some((c) => c.conv === "direct:alice,frank") ? true : undefined));
    answer("frank", operationId as string, { action: "accept", content: { eta: 1 } });
    const [result] = await eventually(async () => {
      const found = await results();
      return found.length > 0 ? found : undefined;
    });
    expect(result!.item.outcomes).toEqual([
      { member: "agent:erin", outcome: { kind: "no-answer" } },
      { member: "agent:frank", outcome: { kind: "answered", content: { eta: 1 } } },
    ]);
  });
});

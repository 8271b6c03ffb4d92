/**
 * How a send ends for the router's answers a real router never gives on purpose, against a
 * hand-driven router (seed 003 "Closed failures", "Operations"): a refusal as bad-signature or
 * malformed, a certificate that does not verify, a certified position this daemon already holds
 * another record at, and an all_gather request post that does not certify in time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeRouter } from "./harness/fake-router.js";
import { callTool, connect, eventually, type Connected } from "./harness/mcp.js";
import { readAll } from "./harness/network.js";
import { DaemonProcess, removeDirs } from "./harness/processes.js";

const FORM = { type: "object", properties: { ok: { type: "boolean" } } };
const allGather = (question: string, deadline: number) =>
  JSON.stringify({ all_gather: question, deadline, requestedSchema: FORM });

describe("the router's unusual answers, as SendErrors", () => {
  let router: FakeRouter;
  let dan: DaemonProcess;
  let mcp: Connected;

  beforeAll(async () => {
    router = await FakeRouter.start();
    for (const name of ["alice", "carol", "erin", "fay", "gus", "hal", "ivy"]) router.agent(name);
    // The link waits a minute for an answer, so the send's own 20 s wait is what ends a silent post.
    dan = await DaemonProcess.start({ name: "dan", router: router.url, extraArgs: ["--router-timeout-ms", "60000"] });
    await router.authenticated();
    mcp = await connect(dan.mcpUrl, dan.runtimeToken);
  });
  afterAll(async () => {
    await mcp?.close();
    await dan?.stop();
    await router?.close();
    removeDirs(dan.dataDir);
  });

  const send = (to: string, text: string) => callTool(mcp.client, "send_message", { to, text });

  it.each([
    ["bad-signature", "agent:alice", "direct:alice,dan"],
    ["malformed", "agent:carol", "direct:carol,dan"],
  ] as const)("answers outcome-unknown for a %s refusal", async (reason, to, conv) => {
    router.policy = (p) =>
      p.conv === conv ? { action: "refuse", reason, detail: `a ${reason} refusal` } : { action: "certify" };
    expect(await send(to, `refused as ${reason}`)).toMatchObject({
      ok: false,
      code: -32030,
      data: { reason: "outcome-unknown", detail: `a ${reason} refusal` },
    });
  });

  it("answers outcome-unknown for a certificate it cannot verify", async () => {
    router.policy = (p) => (p.conv === "direct:dan,erin" ? { action: "certify", forged: true } : { action: "certify" });
    const outcome = await send("agent:erin", "a forged certificate");
    expect(outcome).toMatchObject({ ok: false, code: -32030, data: { reason: "outcome-unknown" } });
    expect(!outcome.ok && outcome.message).toMatch(/cannot verify/);
  });

  it("answers outcome-unknown for a certified record it cannot store", async () => {
    const conv = "direct:dan,fay";
    router.pushNext("fay", conv, [{ type: "text", text: "first at seq 1" }]);
    await eventually(async () => (router.acks().some((a) => a.conv === conv && a.seq === 1) ? true : undefined));
    // The router certifies our post at the position fay's record already holds.
    router.policy = (p) => (p.conv === conv ? { action: "certify", seq: 1 } : { action: "certify" });
    const outcome = await send("agent:fay", "certified where fay's record is");
    expect(outcome).toMatchObject({ ok: false, code: -32030, data: { reason: "outcome-unknown" } });
    expect(!outcome.ok && outcome.message).toMatch(/could not be stored locally/);
  });

  it("lets the deadline complete an all_gather before its post certifies: the result stands", async () => {
    // The request post certifies only after the deadline; the close after it.
    router.policy = (p) =>
      p.conv === "group:dan,gus,hal" &&
      p.record.kind === "post" &&
      JSON.stringify(p.record.content).includes('"request"')
        ? { action: "certify", delayMs: 4_000 }
        : { action: "certify" };
    const outcome = await send("group:dan,gus,hal", allGather("before it certifies?", 2));
    expect(outcome).toMatchObject({ ok: true, result: { operationId: expect.stringMatching(/^col_/) } });
    const id = outcome.ok ? (outcome.result as { operationId: string }).operationId : "";
    const [result] = await eventually(async () => {
      const found = (await readAll({ daemon: dan, mcp })).filter((e) => e.item.id === id);
      return found.length > 0 ? found : undefined;
    });
    expect(result!.item).toMatchObject({
      kind: "collectiveResult",
      op: "all_gather",
      outcomes: [
        { member: "agent:gus", outcome: { kind: "no-answer" } },
        { member: "agent:hal", outcome: { kind: "no-answer" } },
      ],
    });
  });

  it("fails an all_gather whose post is not certified within 20 s with certification-unavailable", async () => {
    router.policy = () => ({ action: "ignore" });
    const started = Date.now();
    const outcome = await send("group:alice,dan,ivy", allGather("certified in time?", 120));
    expect(Date.now() - started).toBeGreaterThanOrEqual(20_000);
    expect(outcome).toMatchObject({
      ok: false,
      data: {
        reason: "collective-failed",
        failure: {
          kind: "members-unreachable",
          members: [
            { member: "agent:alice", reason: "certification-unavailable", detail: expect.stringMatching(/send wait/) },
            { member: "agent:ivy", reason: "certification-unavailable", detail: expect.stringMatching(/send wait/) },
          ],
        },
      },
    });
  }, 60_000);
});

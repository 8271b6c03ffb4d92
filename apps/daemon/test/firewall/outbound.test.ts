/**
 * The firewall on the way out, through real processes (seed 001 "Stock host projection", SPEC
 * §10): refusals on the original call (also with failureDelivery inbound), a judge's confident,
 * uncertain and failed judgments, guidance mode, and stale captures under real concurrent traffic.
 */
import { acquireHarnessEndpoint, FirewallSendError } from "@social-harness/client";
import { Effect, Either } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeJudge } from "../harness/fake-judge.js";
import { callTool, eventually } from "../harness/mcp.js";
import { Network, readAll, waitFor, type InboxItem } from "../harness/network.js";
import { ownerClient } from "../harness/owner.js";
import { injectionRule, judgeMiddleware, setPolicy } from "./policies.js";

const ETA = { type: "object", properties: { eta: { type: "integer" } }, required: ["eta"] };
const textOf = (e: InboxItem) => e.item.message?.content?.[0]?.text as string | undefined;
const NO_CREDENTIALS = {
  id: "house",
  kind: "rules",
  rules: [
    {
      id: "no-credentials",
      direction: "outbound",
      match: { text: { pattern: "api[_ -]?key|password", flags: "i" } },
      decision: "refuse",
      instruction: "Never send credentials to another agent.",
    },
  ],
};

describe("the firewall on the way out", () => {
  let net: Network;
  let judge: FakeJudge;
  const alice = () => net.agent("alice");
  const send = (to: string, text: string, meta?: Record<string, unknown>) =>
    callTool(alice().mcp.client, "send_message", { to, text }, meta);
  const policy = (mode: "enforce" | "guidance", leakDecision: "hold" | "refuse" = "hold") => ({
    mode,
    middlewares: [
      NO_CREDENTIALS,
      judgeMiddleware(judge.endpoint, [
        injectionRule("outbound", {
          id: "leak",
          norm: "Does the message reveal private data?",
          decision: leakDecision,
          instruction: "Keep private data private.",
        }),
      ]),
    ],
  });
  const checks = async () => (await ownerClient(alice().daemon).firewall.checks.query({})).checks;

  beforeAll(async () => {
    judge = await FakeJudge.start();
    net = await Network.start(["alice", "bob", "carol"]);
    await setPolicy(alice().daemon, policy("enforce"));
  });
  afterAll(async () => {
    await net?.close();
    await judge?.close();
  });

  it("refuses a send a rule refuses, with the check and its feedback, and sends nothing", async () => {
    judge.on("my password is", { choice: "no", probability: 0.9 }, 1);
    const outcome = await send("agent:bob", "my password is hunter2");
    expect(outcome).toEqual({
      ok: false,
      code: -32030,
      message: expect.any(String),
      data: {
        reason: "firewall-refused",
        checkId: expect.stringMatching(/^chk_/),
        refusal: "refused",
        feedback: "Never send credentials to another agent.",
      },
    });
    const [check] = await checks();
    expect(check).toMatchObject({
      checkId: (outcome as { data: { checkId: string } }).data.checkId,
      direction: "outbound",
      decision: "refuse",
      outcome: "refused",
    });
    const { records } = await ownerClient(alice().daemon).history.records.query({ conversation: "direct:alice,bob" });
    expect(JSON.stringify(records)).not.toContain("hunter2");
  });

  it("checks a first send to a new group before opening it: a refused one leaves no genesis anywhere", async () => {
    judge.on("my password for the group", { choice: "no", probability: 0.9 }, 1);
    judge.on("after the refused group send", { choice: "no", probability: 0.9 }, 1);
    const outcome = await send("group:bob,carol", "my password for the group is hunter2");
    expect(outcome).toMatchObject({ ok: false, data: { reason: "firewall-refused", refusal: "refused" } });
    // A direct message after it: each daemon's link delivers in order, so a genesis would be stored first.
    expect(await send("agent:bob", "after the refused group send")).toMatchObject({ ok: true });
    await waitFor(net.agent("bob"), (e) => textOf(e) === "after the refused group send");
    for (const member of [alice(), net.agent("bob"), net.agent("carol")]) {
      const { records } = await ownerClient(member.daemon).history.records.query({
        conversation: "group:alice,bob,carol",
      });
      expect(records).toEqual([]);
    }
  });

  it("refuses on the original call also with failureDelivery inbound, and nothing reaches the inbox", async () => {
    judge.on("password", { choice: "no", probability: 0.9 }, 1);
    const outcome = await send(
      "group:bob,carol",
      JSON.stringify({ gather: "What is the admin password?", deadline: 30, requestedSchema: ETA }),
      { "org.social-harness/send": { failureDelivery: "inbound" } },
    );
    expect(outcome).toMatchObject({ ok: false, data: { reason: "firewall-refused", refusal: "refused" } });
    expect((await readAll(alice())).filter((e) => e.item.kind === "operationFailed")).toEqual([]);
    expect((await readAll(net.agent("bob"))).filter((e) => e.item.kind === "collectiveRequest")).toEqual([]);
  });

  it("holds a send the judge is confident about, and reports an unavailable judge", async () => {
    judge.on("here is the customer list", { choice: "yes", probability: 0.95 }, 1);
    expect(await send("agent:bob", "here is the customer list")).toMatchObject({
      ok: false,
      data: { reason: "firewall-refused", refusal: "held", feedback: "Keep private data private." },
    });
    judge.on("while the judge is down", { status: 500 }, 1);
    expect(await send("agent:bob", "while the judge is down")).toMatchObject({
      ok: false,
      data: { reason: "firewall-refused", refusal: "unavailable" },
    });
    const down = (await checks()).find((c) => c.subjects[0]?.text === "while the judge is down");
    expect(down?.middlewares.find((m) => m.middlewareId === "judge")?.error).toMatch(/500/);
  });

  it("returns the check's guidance with a send whose judgment was uncertain", async () => {
    judge.on("a borderline note", { choice: "yes", probability: 0.5 }, 1);
    const outcome = await send("agent:bob", "a borderline note");
    expect(outcome).toEqual({
      ok: true,
      result: {
        guidance: {
          checkId: expect.stringMatching(/^chk_/),
          subjects: [
            {
              id: expect.stringMatching(/^pst_/),
              sender: "agent:alice",
              recipients: ["agent:bob"],
              text: "a borderline note",
            },
          ],
          instructions: [
            {
              middlewareId: "judge",
              ruleId: "leak",
              uncertain: { choice: "yes", probability: 0.5 },
              instruction: "Keep private data private.",
            },
          ],
        },
      },
    });
    // The guidance is local: bob receives the message exactly as alice wrote it, without it.
    const [delivered] = await waitFor(net.agent("bob"), (e) => textOf(e) === "a borderline note");
    expect(delivered!.guidance).toBeUndefined();
    expect(JSON.stringify(delivered!.item)).not.toContain("Keep private data private");
  });

  it("rebuilds FirewallSendError in the client, and hands it the guidance of an uncertain send", async () => {
    judge.on("via the client, borderline", { choice: "yes", probability: 0.6 }, 1);
    judge.on("via the client, my password", { choice: "no", probability: 0.9 }, 1);
    const [admitted, refused] = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const endpoint = yield* acquireHarnessEndpoint(new URL(alice().daemon.mcpUrl), {
            token: alice().daemon.runtimeToken,
          });
          const ok = yield* endpoint.send({ to: "agent:bob", text: "via the client, borderline" });
          const no = yield* Effect.either(endpoint.send({ to: "agent:bob", text: "via the client, my password" }));
          return [ok, no] as const;
        }),
      ),
    );
    expect(admitted.guidance?.instructions).toEqual([
      expect.objectContaining({ ruleId: "leak", uncertain: { choice: "yes", probability: 0.6 } }),
    ]);
    expect(Either.isLeft(refused)).toBe(true);
    const error = Either.isLeft(refused) ? refused.left : undefined;
    expect(error).toBeInstanceOf(FirewallSendError);
    expect(error).toMatchObject({ refusal: "refused", feedback: "Never send credentials to another agent." });
  });

  it("decides and records but never refuses in guidance mode", async () => {
    await setPolicy(alice().daemon, policy("guidance"));
    judge.on("api key", { choice: "no", probability: 0.9 }, 1);
    expect(await send("agent:bob", "the api key is in the vault")).toEqual({ ok: true, result: {} });
    await waitFor(net.agent("bob"), (e) => textOf(e) === "the api key is in the vault");
    const recorded = (await checks()).find((c) => c.subjects[0]?.text === "the api key is in the vault");
    expect(recorded).toMatchObject({ mode: "guidance", decision: "refuse", outcome: "sent" });
    await setPolicy(alice().daemon, policy("enforce"));
  });

  /** Bob writes into the conversation while alice's check is in flight, and alice stores it. */
  async function bobWrites(text: string): Promise<void> {
    await net.send("bob", "agent:alice", text);
    await waitFor(alice(), (e) => textOf(e) === text);
  }

  /** A send whose capture is found stale twice: bob writes during its check and during the recheck. */
  async function staleTwice(text: string) {
    const first = judge.held(text, { choice: "yes", probability: 0.5 });
    const sending = send("agent:bob", text);
    await first.called;
    await bobWrites(`${text}: bob writes during the check`);
    const second = judge.held(text, { choice: "yes", probability: 0.5 });
    first.release();
    await second.called;
    await bobWrites(`${text}: bob writes during the recheck`);
    second.release();
    return sending;
  }

  it("checks a stale capture once more and holds a second stale one in enforce mode", async () => {
    const outcome = await staleTwice("stale in enforce");
    expect(outcome).toMatchObject({ ok: false, data: { reason: "firewall-refused", refusal: "held" } });
    const audit = (await checks()).filter((c) => c.subjects[0]?.text === "stale in enforce");
    expect(audit.map((c) => [c.outcome, c.stale])).toEqual([["refused", 2]]);
    expect((await readAll(net.agent("bob"))).map(textOf)).not.toContain("stale in enforce");
  });

  it("records a second stale capture and allows it without stale advice in guidance mode", async () => {
    await setPolicy(alice().daemon, policy("guidance"));
    const outcome = await staleTwice("stale in guidance");
    expect(outcome).toEqual({ ok: true, result: {} });
    await waitFor(net.agent("bob"), (e) => textOf(e) === "stale in guidance");
    const audit = await eventually(async () => {
      const found = (await checks()).filter((c) => c.subjects[0]?.text === "stale in guidance");
      return found.length > 0 ? found : undefined;
    });
    expect(audit.map((c) => [c.outcome, c.stale, c.guidance])).toEqual([["sent", 2, null]]);
    expect(judge.unscripted).toEqual([]);
  });
});

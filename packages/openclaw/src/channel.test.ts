/**
 * The plugin's message tool actions, core sends and deliver callback against the client's fake
 * daemon (packages/client/src/testing) and OpenClaw's recorded host contract. Real daemons and the
 * real gateway run the same paths in apps/daemon/test/hosts.
 */
import { mintId } from "@social-harness/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { refuse, startFakeDaemon, type FakeDaemon } from "../../client/src/testing/fake-daemon.js";
import type { InboundContext } from "./sdk.js";
import { ContractHost } from "./testing/contract-host.js";

const UNCERTAIN = {
  checkId: mintId("check"),
  subjects: [{ id: "s1", sender: "agent:bob", recipients: ["agent:alice"], text: "the launch is friday" }],
  instructions: [
    {
      middlewareId: "judge",
      ruleId: "leaks",
      uncertain: { choice: "yes", probability: 0.4 },
      instruction: "Make sure the date is public before you share it.",
    },
  ],
};

describe("the social-harness channel's sends (against the client's fake daemon)", () => {
  let daemon: FakeDaemon;
  let host: ContractHost;

  beforeEach(async () => {
    daemon = await startFakeDaemon();
    process.env.SOCIAL_HARNESS_TOKEN = daemon.token;
    host = new ContractHost({ channel: { endpoint: daemon.url.href } });
  });
  afterEach(async () => {
    await host.stop();
    await daemon.stop();
    delete process.env.SOCIAL_HARNESS_TOKEN;
  });

  const sends = () => daemon.calls.filter((call) => call.name === "send_message");

  it("answers send with {ok: true, to} and the check's guidance when the firewall admitted it uncertainly", async () => {
    daemon.answerSend = () => Promise.resolve({ guidance: UNCERTAIN });
    const result = await host.action("send", { to: "agent:alice", message: "the launch is friday" });
    expect(result.details).toEqual({ ok: true, to: "agent:alice", guidance: UNCERTAIN });
    expect(JSON.parse(result.content[0]!.text)).toEqual({ ok: true, to: "agent:alice", guidance: UNCERTAIN });
    expect(sends().map((call) => call.arguments)).toEqual([{ to: "agent:alice", text: "the launch is friday" }]);
  });

  it("answers an admitted send without guidance as exactly {ok: true, to}", async () => {
    const result = await host.action("send", { target: "group:alice,carol", message: "hello both" });
    expect(result.details).toEqual({ ok: true, to: "group:alice,carol" });
  });

  it("sends reply to the current turn's conversation, with the message tool's own parameters only", async () => {
    const result = await host.action("reply", { message: "on my way" }, "group:alice,bob,carol");
    expect(result.details).toEqual({ ok: true, to: "group:alice,bob,carol" });
    expect(sends().map((call) => call.arguments)).toEqual([{ to: "group:alice,bob,carol", text: "on my way" }]);
    expect(host.plugin.actions.describeMessageTool({})).toEqual({ actions: ["send", "reply"] });
  });

  it("reads the text with parseMessageText: an answer's JSON is sent as an answer", async () => {
    await host.action("reply", { message: '{"action": "accept", "content": {"eta": 5}}' }, "agent:alice");
    expect(sends()[0]!.arguments).toEqual({ to: "agent:alice", text: '{"action":"accept","content":{"eta":5}}' });
  });

  it("refuses a target outside the agent: and group: grammars, sending nothing", async () => {
    await expect(host.action("send", { to: "+15551234", message: "hi" })).rejects.toThrow(
      /invalid-address.*agent:<name>/,
    );
    await expect(host.action("send", { message: "hi" })).rejects.toThrow(/needs a target/);
    expect(sends()).toEqual([]);
  });

  it("refuses a malformed operation with the parser's message naming its fields, sending nothing", async () => {
    await expect(
      host.action("send", { to: "agent:alice", message: '{"gather": "when?", "deadline": 0}' }),
    ).rejects.toThrow(/content-invalid.*(deadline|requestedSchema)/);
    expect(sends()).toEqual([]);
  });

  it("returns the daemon's refusal as the tool's error, naming each unreachable member", async () => {
    daemon.answerSend = () => {
      throw refuse({
        reason: "collective-failed",
        failure: { kind: "members-unreachable", members: [{ member: "agent:dave", reason: "unknown-agent" }] },
      });
    };
    const gather = '{"gather": "eta?", "deadline": 60, "requestedSchema": {"type": "object", "properties": {}}}';
    await expect(host.action("send", { to: "group:alice,dave", message: gather })).rejects.toThrow(
      /agent:dave.*unknown-agent/,
    );
  });

  it("tells the model that a pending send will still be delivered and an ambiguous one may have been sent", async () => {
    daemon.answerSend = () => {
      throw refuse({ reason: "delivery-pending" });
    };
    await expect(host.action("send", { to: "agent:alice", message: "hi" })).rejects.toThrow(
      /^pending: it will still be delivered/,
    );
    daemon.answerSend = () => {
      throw refuse({ reason: "outcome-unknown" });
    };
    await expect(host.action("send", { to: "agent:alice", message: "hi" })).rejects.toThrow(/^may have been sent/);
  });

  it("returns a firewall refusal as the tool's error with its feedback", async () => {
    daemon.answerSend = () => {
      throw refuse({
        reason: "firewall-refused",
        checkId: UNCERTAIN.checkId,
        refusal: "refused",
        feedback: "No credentials.",
      });
    };
    await expect(host.action("send", { to: "agent:alice", message: "password: hunter2" })).rejects.toThrow(
      /firewall-refused.*No credentials/,
    );
  });

  it("reads core's own sends (message.send.text) with the same parser", async () => {
    const gather = '{"gather": "eta?", "deadline": 60, "requestedSchema": {"type": "object", "properties": {}}}';
    daemon.answerSend = () => Promise.resolve({ operationId: `col_${"A".repeat(43)}` });
    const { receipt } = await host.plugin.message.send.text({ cfg: host.cfg, to: "agent:alice", text: gather });
    expect(receipt.platformMessageIds).toEqual([]);
    expect(JSON.parse(String(sends()[0]!.arguments.text))).toMatchObject({ gather: "eta?", deadline: 60 });
    await expect(
      host.plugin.message.send.text({ cfg: host.cfg, to: "agent:alice", text: '{"action": "maybe"}' }),
    ).rejects.toThrow(/content-invalid/);
  });
});

describe("the social-harness channel's inbound dispatch (against the client's fake daemon)", () => {
  let daemon: FakeDaemon;
  let host: ContractHost;

  beforeEach(async () => {
    daemon = await startFakeDaemon();
    process.env.SOCIAL_HARNESS_TOKEN = daemon.token;
    host = new ContractHost({ channel: { endpoint: daemon.url.href } });
  });
  afterEach(async () => {
    await host.stop();
    await daemon.stop();
    delete process.env.SOCIAL_HARNESS_TOKEN;
  });

  const direct = (text: string) => ({
    kind: "multicast",
    message: {
      kind: "direct",
      postId: mintId("post"),
      address: "agent:alice",
      sender: "agent:alice",
      content: [{ type: "text", text }],
    },
  });

  it("withholds a final the dispatcher offers its deliver callback, sends nothing, and acknowledges the item", async () => {
    host.behaviour = ContractHost.offeringFinal("a private thought");
    daemon.deliver(direct("hello"));
    host.start();
    await expect.poll(() => daemon.pending(), { timeout: 10_000 }).toEqual([]);
    expect(host.dispatches).toHaveLength(1);
    expect(daemon.calls.filter((call) => call.name === "send_message")).toEqual([]);
  });

  it("selects OpenClaw's tool-only visible-reply mode for every dispatch", async () => {
    const modes: unknown[] = [];
    host.behaviour = (params) => {
      modes.push(params.replyOptions?.sourceReplyDeliveryMode);
      return Promise.resolve();
    };
    daemon.deliver(direct("hello"));
    host.start();
    await expect.poll(() => daemon.pending(), { timeout: 10_000 }).toEqual([]);
    expect(modes).toEqual(["message_tool_only"]);
  });

  it("puts the local firewall's guidance beside the message, never in its body", async () => {
    daemon.deliver(direct("launch friday?"), {
      ...UNCERTAIN,
      instructions: [
        {
          middlewareId: "house",
          ruleId: "r",
          expectation: "required",
          subjects: ["s1"],
          instruction: "Answer politely.",
        },
      ],
    });
    host.start();
    await expect.poll(() => host.dispatches.length, { timeout: 10_000 }).toBe(1);
    const [ctx] = host.dispatches;
    expect(ctx!.Body).toBe("agent:alice (direct):\nlaunch friday?");
    expect(ctx!.ChannelPromptContext).toEqual([expect.stringContaining("Answer politely. (required)")]);
  });

  it("renders every item kind through the dispatch, in the conversation where an answer belongs", async () => {
    const id = `col_${"A".repeat(43)}`;
    const schema = { type: "object", properties: { eta: { type: "integer" } }, required: ["eta"] };
    daemon.deliver({
      kind: "multicast",
      message: {
        kind: "group",
        postId: mintId("post"),
        address: "group:alice,bob,carol",
        sender: "agent:carol",
        members: ["agent:alice", "agent:bob", "agent:carol"],
        content: [{ type: "text", text: "standup" }],
      },
    });
    daemon.deliver({
      kind: "collectiveRequest",
      op: "all_gather",
      id,
      postId: mintId("post"),
      from: "agent:alice",
      to: "group:alice,bob,carol",
      question: "eta?",
      requestedSchema: schema,
      deadlineAt: Date.UTC(2030, 0, 1),
    });
    daemon.deliver({
      kind: "collectiveResult",
      op: "gather",
      id,
      to: "group:carol,dave",
      question: "ready?",
      outcomes: [
        { member: "agent:carol", outcome: { kind: "answered", content: { ready: true } } },
        { member: "agent:dave", outcome: { kind: "no-answer" } },
      ],
    });
    daemon.deliver({ kind: "operationFailed", id, to: "agent:dave", error: "unknown-agent: agent:dave" });
    host.start();
    await expect.poll(() => daemon.pending(), { timeout: 10_000 }).toEqual([]);
    expect(host.dispatches.map((ctx) => [ctx.To, ctx.ChatType, ctx.From, ctx.GroupMembers])).toEqual([
      ["group:alice,bob,carol", "group", "agent:carol", "agent:alice, agent:bob, agent:carol"],
      ["group:alice,bob,carol", "group", "agent:alice", undefined],
      ["group:carol,dave", "group", "social-harness", undefined],
      ["agent:dave", "direct", "social-harness", undefined],
    ]);
    const [message, request, result, failed] = host.dispatches.map((ctx) => ctx.Body);
    expect(message).toBe(
      "agent:carol in group:alice,bob,carol (members: agent:alice, agent:bob, agent:carol):\nstandup",
    );
    expect(request).toContain("eta?");
    expect(request).toContain(JSON.stringify(schema));
    expect(result).toContain('- agent:carol: answered {"ready":true}');
    expect(result).toContain("- agent:dave: no answer");
    expect(failed).toContain("unknown-agent: agent:dave");
  });
});

describe("acknowledgment after the turn, with OpenClaw's run hooks (against the client's fake daemon)", () => {
  let daemon: FakeDaemon;
  let host: ContractHost;

  beforeEach(async () => {
    daemon = await startFakeDaemon();
    process.env.SOCIAL_HARNESS_TOKEN = daemon.token;
    host = new ContractHost({ channel: { endpoint: daemon.url.href, recoveryWaitMs: 1_000 }, hooks: true });
  });
  afterEach(async () => {
    await host.stop();
    await daemon.stop();
    delete process.env.SOCIAL_HARNESS_TOKEN;
  });

  const direct = (text: string) => ({
    kind: "multicast",
    message: {
      kind: "direct",
      postId: mintId("post"),
      address: "agent:alice",
      sender: "agent:alice",
      content: [{ type: "text", text }],
    },
  });

  it("acknowledges an item once the run its dispatch started has ended", async () => {
    host.behaviour = (_params, ctx) => Promise.resolve(host.agentEnded(ctx));
    daemon.deliver(direct("hello"));
    host.start();
    await expect.poll(() => daemon.pending(), { timeout: 10_000 }).toEqual([]);
    expect(host.failures).toEqual([]);
  });

  it("leaves an item pending when OpenClaw failed the message tool itself, and offers it again under a fresh id", async () => {
    let offers = 0;
    host.behaviour = (_params, ctx) => {
      offers += 1;
      if (offers === 1) host.toolFailed(ctx, "Gateway client authority closed before dispatching message.action.");
      host.agentEnded(ctx);
      return Promise.resolve();
    };
    daemon.deliver(direct("hello"));
    host.start();
    await expect.poll(() => daemon.pending(), { timeout: 10_000 }).toEqual([]);
    expect(String(host.failures[0])).toContain("Gateway client authority closed");
    const [first, second] = host.dispatches;
    expect(second!.MessageSid).toBe(`${first!.MessageSid}~1`);
    expect(second!.Body).toBe(first!.Body);
  });

  it("counts the plugin's own refusal, which the model saw, as a handled turn", async () => {
    host.behaviour = async (_params, ctx) => {
      await host.action("send", { to: "nobody", message: "hi" }, undefined, ctx.SessionKey).catch((error: Error) => {
        host.turns.toolCalled({ toolName: "message", error: error.message }, { sessionKey: ctx.SessionKey });
      });
      host.agentEnded(ctx);
    };
    daemon.deliver(direct("hello"));
    host.start();
    await expect.poll(() => daemon.pending(), { timeout: 10_000 }).toEqual([]);
    expect(host.failures).toEqual([]);
    expect(host.dispatches).toHaveLength(1);
  });

  it("waits for the run OpenClaw's restart recovery owns when the dispatch started none, and acknowledges after it", async () => {
    let recovered: InboundContext | undefined;
    host.behaviour = (_params, ctx) => {
      recovered = ctx;
      return Promise.resolve();
    };
    daemon.deliver(direct("hello"));
    host.start();
    await expect.poll(() => recovered !== undefined, { timeout: 10_000 }).toBe(true);
    expect(daemon.pending()).toHaveLength(1);
    host.agentEnded(recovered!);
    await expect.poll(() => daemon.pending(), { timeout: 10_000 }).toEqual([]);
    expect(host.failures).toEqual([]);
  });

  it("acknowledges nothing when no run of the item's session ends (OpenClaw's recovery gave up)", async () => {
    host.behaviour = () => Promise.resolve();
    daemon.deliver(direct("hello"));
    host.start();
    await expect.poll(() => host.failures.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(String(host.failures[0])).toContain("no agent run");
    expect(daemon.pending()).toHaveLength(1);
    await expect.poll(() => host.dispatches.length, { timeout: 10_000 }).toBeGreaterThan(1);
    expect(host.dispatches[1]!.MessageSid).toBe(`${host.dispatches[0]!.MessageSid}~1`);
  });
});

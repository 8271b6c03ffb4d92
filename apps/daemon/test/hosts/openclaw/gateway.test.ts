/**
 * The real OpenClaw gateway (openclaw 2026.9.6 on Node 24, installed from the npm registry into a
 * cache folder) with the plugin installed from its npm-pack tarball, a scripted fake model, a
 * router and three daemons as real processes. bob is the OpenClaw agent; alice and carol speak
 * MCP. Seeds 000 "Native host attention", "Delivery handoff" and 001 "Stock host projection",
 * "Failures and tests": real-host qualification in OpenClaw's normal mode.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { eventually } from "../../harness/mcp.js";
import { Network, readAll, waitFor, type InboxItem } from "../../harness/network.js";
import { AFTER_TOOL_TEXT, FakeModel } from "./fake-model.js";
import { Gateway } from "./gateway.js";

const textOf = (entry: InboxItem): string =>
  entry.item.kind === "multicast"
    ? (entry.item.message.content as { text?: string }[]).map((p) => p.text ?? "").join("")
    : "";

/** A gate a model rule waits on, so a test can look at the world while a run is in flight. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe("the real OpenClaw gateway with the social-harness plugin", () => {
  let net: Network;
  let model: FakeModel;
  let gateway: Gateway;
  let dir: string;

  beforeAll(async () => {
    net = await Network.start(["alice", "bob", "carol"]);
    model = new FakeModel();
    await model.start();
    dir = mkdtempSync(path.join(tmpdir(), "sh-openclaw-"));
    const bob = net.agent("bob").daemon;
    gateway = await Gateway.start({
      host: inject("openclawHost"),
      tarball: inject("openclawPluginTarball"),
      dir,
      modelBaseUrl: model.baseUrl,
      channel: { endpoint: bob.mcpUrl, tokenFile: path.join(bob.dataDir, "runtime.token") },
    });
  }, 420_000);

  afterAll(async () => {
    await gateway?.stop();
    await model?.stop();
    await net?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  // A failure names what the gateway printed and what the model was asked, which is all there is
  // to tell a turn OpenClaw never started from one that called the tool and failed.
  beforeEach(({ onTestFailed }) => {
    const logFrom = gateway.log().length;
    const asked = model.requests.length;
    onTestFailed(() => {
      console.error(
        `the gateway's log during the test:\n${gateway.log().slice(logFrom).slice(-8000)}\n` +
          `the model's requests during the test:\n${JSON.stringify(model.requests.slice(asked), null, 1).slice(-8000)}`,
      );
    });
  });

  /**
   * Waits until the model has been asked about `marker`: bob's inbox is empty both before the item
   * arrives and after its turn, so a test that looks for the empty inbox waits for this first.
   */
  const modelAsked = (marker: string) =>
    eventually(
      async () => (model.requestsFor(marker).length > 0 ? true : undefined),
      60_000,
      `the model to be asked about ${marker}`,
    );

  const bobsInboxIsEmpty = () =>
    eventually(
      async () => ((await readAll(net.agent("bob"))).length === 0 ? true : undefined),
      60_000,
      "bob's inbox to empty",
    );

  it("hands alice's direct message to the agent, and message(reply) answers her in that conversation", async () => {
    model.on("ping-direct", { tool: { action: "reply", message: "pong-direct" } });
    await net.send("alice", "agent:bob", "ping-direct");
    const [answer] = await waitFor(net.agent("alice"), (e) => textOf(e) === "pong-direct", 1, 90_000);
    expect(answer!.item.message).toMatchObject({ kind: "direct", address: "agent:bob", sender: "agent:bob" });
    const [turn] = model.requestsFor("ping-direct");
    expect(turn!.prompt).toContain("agent:alice");
    await bobsInboxIsEmpty();
  });

  it("hands a group message with its sender and full membership, and the reply goes to the whole group", async () => {
    model.on("ping-group", { tool: { action: "reply", message: "pong-group" } });
    await net.send("alice", "group:bob,carol", "ping-group");
    for (const name of ["alice", "carol"]) {
      const [answer] = await waitFor(net.agent(name), (e) => textOf(e) === "pong-group", 1, 90_000);
      expect(answer!.item.message).toMatchObject({
        kind: "group",
        address: "group:alice,bob,carol",
        sender: "agent:bob",
        members: ["agent:alice", "agent:bob", "agent:carol"],
      });
    }
    const [turn] = model.requestsFor("ping-group");
    expect(turn!.prompt).toContain("agent:alice");
    expect(JSON.stringify(turn!.messages)).toContain("agent:carol");
    await bobsInboxIsEmpty();
  });

  it("answers alice's gather through message(reply), and alice's result counts bob's answer", async () => {
    model.on("minutes-to-arrive", { tool: { action: "reply", message: '{"action":"accept","content":{"eta":5}}' } });
    const gather = JSON.stringify({
      gather: "minutes-to-arrive?",
      deadline: 120,
      requestedSchema: { type: "object", properties: { eta: { type: "integer" } }, required: ["eta"] },
    });
    const { operationId } = (await net.send("alice", "agent:bob", gather)) as { operationId: string };
    const [result] = await waitFor(
      net.agent("alice"),
      (e) => e.item.kind === "collectiveResult" && e.item.id === operationId,
      1,
      90_000,
    );
    expect(result!.item.outcomes).toEqual([
      { member: "agent:bob", outcome: { kind: "answered", content: { eta: 5 } } },
    ]);
  });

  it("sends to an explicit target with message(send) in normal mode", async () => {
    model.on("tell-carol", { tool: { action: "send", target: "agent:carol", message: "hello carol, from bob" } });
    await net.send("alice", "agent:bob", "tell-carol");
    const [sent] = await waitFor(net.agent("carol"), (e) => textOf(e) === "hello carol, from bob", 1, 90_000);
    expect(sent!.item.message).toMatchObject({ kind: "direct", address: "agent:bob", sender: "agent:bob" });
    await bobsInboxIsEmpty();
    expect((await readAll(net.agent("alice"))).filter((e) => textOf(e).includes("hello carol"))).toEqual([]);
  });

  it("keeps final text private: a final answer without the message tool posts nothing", async () => {
    model.on("private-final", { text: "SECRET-FINAL-TEXT" });
    await net.send("alice", "agent:bob", "private-final");
    await modelAsked("private-final");
    await bobsInboxIsEmpty();
    for (const name of ["alice", "carol"]) {
      expect((await readAll(net.agent(name))).filter((e) => JSON.stringify(e.item).includes("SECRET-FINAL"))).toEqual(
        [],
      );
    }
  });

  it("returns a refused send to the model as the tool's error, naming the reason", async () => {
    model.on("write-nobody", { tool: { action: "send", target: "agent:nobody-here", message: "hello?" } });
    await net.send("alice", "agent:bob", "write-nobody");
    await modelAsked("write-nobody");
    await bobsInboxIsEmpty();
    const after = await eventually(
      async () =>
        model
          .requestsFor("write-nobody")
          .find((r) => r.messages.some((m) => m.role === "tool" && m.text.includes("unknown-agent"))),
      30_000,
      "the tool error to reach the model",
    );
    expect(after.messages.findLast((m) => m.role === "tool")!.text).toContain("nobody-here");
  });

  it("counts a failed agent run as a completed handoff: the dispatch resolves, nothing is posted", async () => {
    // Seed 000: callback success establishes handoff, not processing. OpenClaw's dispatch resolves
    // after a run that failed and offers its error text as a final, which the plugin withholds.
    model.on("model-breaks", { status: 400 });
    const alicesBefore = (await readAll(net.agent("alice"))).length;
    const logFrom = gateway.log().length;
    await net.send("alice", "agent:bob", "model-breaks");
    await modelAsked("model-breaks");
    await bobsInboxIsEmpty();
    expect(gateway.log().slice(logFrom)).toContain("withheld final output for agent:alice");
    expect(await readAll(net.agent("alice"))).toHaveLength(alicesBefore);
  });

  it("acknowledges an item only after the agent run it started has ended", async () => {
    const held = gate();
    const reached = gate();
    model.on("slow-turn", async () => {
      reached.open();
      await held.opened;
      return { text: AFTER_TOOL_TEXT };
    });
    await net.send("alice", "agent:bob", "slow-turn");
    await reached.opened;
    const during = await readAll(net.agent("bob"));
    expect(during.map(textOf)).toEqual(["slow-turn"]);
    held.open();
    await bobsInboxIsEmpty();
  });

  it("replays the delivery to a gateway that crashed mid-turn and acknowledges it only after OpenClaw's recovered turn answers", async () => {
    const reached = gate();
    model.on("crash-turn", () => {
      reached.open();
      return new Promise(() => undefined);
    });
    await net.send("alice", "agent:bob", "crash-turn");
    await reached.opened;
    const [before] = await readAll(net.agent("bob"));
    await gateway.crash();
    const [afterCrash] = await readAll(net.agent("bob"));
    expect(JSON.stringify(afterCrash)).toBe(JSON.stringify(before));
    const promptsBefore = model.requestsFor("crash-turn").length;
    const answering = gate();
    const resume = gate();
    model.on("crash-turn", async () => {
      answering.open();
      await resume.opened;
      return { tool: { action: "reply", message: "back again" } };
    });
    await gateway.boot();
    await answering.opened;
    // The plugin offered the item again and OpenClaw skipped it (its restart recovery owns the
    // turn): while the recovered turn runs, the item is still pending, the same token and payload.
    const [during] = await readAll(net.agent("bob"));
    expect(JSON.stringify(during)).toBe(JSON.stringify(before));
    resume.open();
    await waitFor(net.agent("alice"), (e) => textOf(e) === "back again", 1, 120_000);
    await bobsInboxIsEmpty();
    // The answer came from OpenClaw's recovered turn, which carries its restart note beside the
    // transcript of the interrupted one, and from no second turn the replay might have started.
    const replayed = model.requestsFor("crash-turn").slice(promptsBefore);
    expect(replayed.length).toBeGreaterThan(0);
    for (const turn of replayed) expect(JSON.stringify(turn.messages)).toMatch(/interrupted/i);
    expect(model.requestsFor("crash-turn")[0]!.prompt).toContain("agent:alice (direct):\ncrash-turn");
    expect((await readAll(net.agent("alice"))).filter((e) => textOf(e) === "back again")).toHaveLength(1);
    expect(gateway.log()).not.toContain("stays pending");
  });
});

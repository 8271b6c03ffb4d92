/**
 * The NanoClaw adapter against real daemons, with NanoClaw's host side as the adapter's recorded
 * contract (packages/nanoclaw/src/contract.ts and src/testing/contract-host.ts): NanoClaw's agent
 * containers need a container engine, which this machine lacks. Host qualification, then the
 * outbound contract of seed 001 "Stock host projection" for `send_message` and `messages_out`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSocialHarnessAdapter } from "../../../../packages/nanoclaw/src/adapter.js";
import { ContractHost, type RoutedMessage } from "../../../../packages/nanoclaw/src/testing/contract-host.js";
import { eventually } from "../harness/mcp.js";
import { Network, readAll, waitFor, type InboxItem } from "../harness/network.js";
import { qualifyHost, type AttachedHost, type NativeInbound } from "./qualification.js";

function nativeOf(routed: RoutedMessage): NativeInbound {
  const { text, sender } = routed.message.content;
  const members = /^members of \S+: (.+)\n/.exec(text)?.[1]?.split(", ");
  // The timestamp is when the adapter handed the item over, so a replay carries a later one.
  const { timestamp: _handedOverAt, ...payload } = routed.message;
  return {
    conversation: routed.platformId,
    chatType: routed.message.isGroup === true ? "group" : "direct",
    sender,
    ...(members === undefined ? {} : { members }),
    text,
    bytes: JSON.stringify({ platformId: routed.platformId, threadId: routed.threadId, message: payload }),
  };
}

qualifyHost({
  name: "NanoClaw adapter (the recorded NanoClaw host contract)",
  attach: async ({ mcpUrl, token }) => {
    const failures: unknown[] = [];
    const adapter = createSocialHarnessAdapter({
      endpoint: new URL(mcpUrl),
      token,
      restartDelayMs: 200,
      log: (level, message) => {
        if (level !== "info") failures.push(message);
      },
    });
    const host = new ContractHost(adapter);
    const calls: NativeInbound[] = [];
    let failing = 0;
    let held: { reached: () => void; released: Promise<void> } | undefined;
    host.onInbound = async (routed) => {
      calls.push(nativeOf(routed));
      if (held !== undefined) {
        const { reached, released } = held;
        held = undefined;
        reached();
        await released;
      }
      if (failing > 0) {
        failing -= 1;
        throw new Error("NanoClaw could not route the message into its session");
      }
    };
    await host.setup();
    const attached: AttachedHost = {
      calls,
      failures,
      failCallbacks: (count) => (failing += count),
      holdNextCallback: () => {
        let reached!: () => void;
        let release!: () => void;
        const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
        const released = new Promise<void>((resolve) => (release = resolve));
        held = { reached, released };
        return { reached: reachedPromise, release };
      },
      send: async (to, text) => {
        const row = await host.deliverRow(to, { text });
        if (row.state !== "delivered") throw new Error(`the row to ${to} failed: ${String(row.errors.at(-1))}`);
      },
      detach: () => adapter.teardown(),
    };
    return attached;
  },
});

const textOf = (entry: InboxItem): string =>
  entry.item.kind === "multicast"
    ? (entry.item.message.content as { text?: string }[]).map((p) => p.text ?? "").join("")
    : "";

describe("NanoClaw outbound rows as Social Harness sends (the recorded NanoClaw host contract)", () => {
  let net: Network;
  let host: ContractHost;

  beforeAll(async () => {
    net = await Network.start(["alice", "bob", "carol"], { extraArgs: ["--router-timeout-ms", "1500"] });
    const { daemon } = net.agent("bob");
    // A second between delivery attempts, so a restarting daemon is back within NanoClaw's six.
    host = new ContractHost(
      createSocialHarnessAdapter({ endpoint: new URL(daemon.mcpUrl), token: daemon.runtimeToken, restartDelayMs: 200 }),
      1_000,
    );
    await host.setup();
  });
  afterAll(async () => {
    await host?.adapter.teardown();
    await net?.close();
  });

  it("sends send_message's {text} and a bare-text row to the row's address, once each", async () => {
    expect(await host.deliverRow("agent:alice", { text: "n-row as {text}" })).toMatchObject({
      state: "delivered",
      attempts: 1,
    });
    expect(await host.deliverRow("group:alice,bob,carol", "n-row bare")).toMatchObject({
      state: "delivered",
      attempts: 1,
    });
    await waitFor(net.agent("alice"), (e) => textOf(e) === "n-row as {text}");
    const [group] = await waitFor(net.agent("carol"), (e) => textOf(e) === "n-row bare");
    expect(group!.item.message).toMatchObject({ kind: "group", address: "group:alice,bob,carol", sender: "agent:bob" });
  });

  it("completes a row whose text the parser refuses and tells the model in that conversation", async () => {
    const row = await host.deliverRow("agent:alice", '{"gather": "when?", "deadline": 0}');
    expect(row).toMatchObject({ state: "delivered", attempts: 1 });
    const [notice] = host.notices("agent:alice");
    expect(notice).toContain("was not sent");
    expect(notice).toMatch(/deadline|requestedSchema/);
  });

  it("completes a row refused for a reason no retry fixes, and tells the model", async () => {
    const row = await host.deliverRow("agent:nobody-at-all", { text: "hello?" });
    expect(row).toMatchObject({ state: "delivered", attempts: 1 });
    expect(host.notices("agent:nobody-at-all")).toEqual([expect.stringContaining("unknown-agent")]);
  });

  it("sends a gather with failureDelivery inbound: its refusal completes the row and arrives as operationFailed", async () => {
    const gather = JSON.stringify({
      gather: "n-gather ready?",
      deadline: 60,
      requestedSchema: { type: "object", properties: { ready: { type: "boolean" } } },
    });
    const routedBefore = host.routed.length;
    expect(await host.deliverRow("group:alice,bob,nobody-at-all", { text: gather })).toMatchObject({
      state: "delivered",
      attempts: 1,
    });
    const failed = await eventually(
      async () => host.routed.slice(routedBefore).find((routed) => routed.message.content.text.includes("failed")),
      20_000,
      "the operationFailed item",
    );
    expect(failed.message.content.text).toContain("nobody-at-all");
  });

  it("answers a gather request in the conversation it arrived in", async () => {
    const gather = JSON.stringify({
      gather: "n-answer eta?",
      deadline: 60,
      requestedSchema: { type: "object", properties: { eta: { type: "integer" } }, required: ["eta"] },
    });
    const { operationId } = (await net.send("alice", "agent:bob", gather)) as { operationId: string };
    const request = await eventually(
      async () => host.routed.find((routed) => routed.message.content.text.includes("n-answer eta?")),
      20_000,
      "the request",
    );
    expect(request.platformId).toBe("agent:alice");
    expect(
      await host.deliverRow(request.platformId, { text: '{"action":"accept","content":{"eta":7}}' }),
    ).toMatchObject({
      state: "delivered",
    });
    const [result] = await waitFor(
      net.agent("alice"),
      (e) => e.item.kind === "collectiveResult" && e.item.id === operationId,
    );
    expect(result!.item.outcomes).toEqual([
      { member: "agent:bob", outcome: { kind: "answered", content: { eta: 7 } } },
    ]);
  });

  it("completes a delivery-pending row with a notice, and the daemon still delivers the post once", async () => {
    net.router.proc.child.kill("SIGSTOP");
    try {
      const row = await host.deliverRow("agent:carol", { text: "n-pending post" });
      expect(row).toMatchObject({ state: "delivered", attempts: 1 });
      expect(host.notices("agent:carol")).toEqual([expect.stringContaining("pending")]);
    } finally {
      net.router.proc.child.kill("SIGCONT");
    }
    await waitFor(net.agent("carol"), (e) => textOf(e) === "n-pending post");
    expect((await readAll(net.agent("carol"))).filter((e) => textOf(e) === "n-pending post")).toHaveLength(1);
  });

  it("leaves a row that failed for another reason to NanoClaw's retry, which delivers it once the daemon is back", async () => {
    await net.stop("bob");
    const row = host.deliverRow("agent:alice", { text: "n-retried post" });
    await new Promise((resolve) => setTimeout(resolve, 500));
    await net.restart("bob");
    const outcome = await row;
    expect(outcome.state).toBe("delivered");
    expect(outcome.attempts).toBeGreaterThan(1);
    expect(String(outcome.errors[0])).toContain("network-unavailable");
    await waitFor(net.agent("alice"), (e) => textOf(e) === "n-retried post");
  });
});

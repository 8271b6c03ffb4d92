/**
 * Host qualification (seed 003 "Acceptance", seed 000 "Native host attention"): one suite every
 * host adapter runs against real daemons. A router and the daemons of alice, bob and carol run as
 * processes; bob's host is the adapter under test, attached to bob's daemon through an MCP tap
 * that records what the daemon handed out and can lose an acknowledgment. Each driver says which
 * host it runs (a real one, or the host's recorded contract) and the suite's name carries it.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../harness/mcp.js";
import { Network, readAll, waitFor } from "../harness/network.js";
import { McpTap } from "./mcp-tap.js";

/** One call of the host's native inbound callback, as the host received it. */
export interface NativeInbound {
  /** The conversation the host files it under, which is where a reply goes. */
  readonly conversation: string;
  readonly chatType: "direct" | "group";
  readonly sender: string;
  /** The group membership the host was given; undefined for a direct conversation. */
  readonly members?: readonly string[];
  readonly text: string;
  /** The whole native payload, serialised, without host-assigned receive times. */
  readonly bytes: string;
}

export interface AttachedHost {
  /** Every call of the native inbound callback, failed ones included, in order. */
  readonly calls: readonly NativeInbound[];
  /** Failures the adapter propagated to the host, in order. */
  readonly failures: readonly unknown[];
  /** Makes the next `count` native callbacks fail. */
  failCallbacks(count: number): void;
  /** Holds the next native callback until `release`; `reached` resolves once it is called. */
  holdNextCallback(): { readonly reached: Promise<void>; release(): void };
  /** Sends through the host's own outbound path, resolving once the host counts it handled. */
  send(to: string, text: string): Promise<void>;
  detach(): Promise<void>;
}

export interface HostDriver {
  /** The host and how real it is, e.g. "OpenClaw (the recorded host contract)". */
  readonly name: string;
  /** Attaches a host to a daemon's MCP endpoint with its runtime token (also in `tokenFile`). */
  attach(daemon: {
    readonly mcpUrl: string;
    readonly token: string;
    readonly tokenFile: string;
  }): Promise<AttachedHost>;
}

const CALL_TIMEOUT_MS = 30_000;

/** Defines the qualification suite for `driver`. */
export function qualifyHost(driver: HostDriver): void {
  describe(`host qualification: ${driver.name}`, () => {
    let net: Network;
    let tap: McpTap;
    let host: AttachedHost | undefined;

    const bobsEndpoint = () => {
      const { daemon } = net.agent("bob");
      return { mcpUrl: tap.url, token: daemon.runtimeToken, tokenFile: path.join(daemon.dataDir, "runtime.token") };
    };
    const attach = async () => {
      host = await driver.attach(bobsEndpoint());
      return host;
    };
    const detach = async () => {
      await host?.detach();
      host = undefined;
    };
    const callWith = (attached: AttachedHost, text: string, count = 1) =>
      eventually(
        async () => {
          const calls = attached.calls.filter((call) => call.text.includes(text));
          return calls.length >= count ? calls : undefined;
        },
        CALL_TIMEOUT_MS,
        `${count} host callback(s) with "${text}"`,
      );
    const bobsInboxIsEmpty = () =>
      eventually(
        async () => ((await readAll(net.agent("bob"))).length === 0 ? true : undefined),
        CALL_TIMEOUT_MS,
        "bob's inbox to empty",
      );

    beforeAll(async () => {
      net = await Network.start(["alice", "bob", "carol"], { extraArgs: ["--event-heartbeat-ms", "1000"] });
      tap = await McpTap.start(net.agent("bob").daemon.mcpUrl);
    });
    afterAll(async () => {
      await detach();
      await tap?.stop();
      await net?.close();
    });

    it("hands a direct message to the host as a direct conversation with its sender", async () => {
      const attached = await attach();
      await net.send("alice", "agent:bob", "q-direct hello bob");
      const [call] = await callWith(attached, "q-direct hello bob");
      expect(call).toMatchObject({ conversation: "agent:alice", chatType: "direct", sender: "agent:alice" });
      expect(call!.members).toBeUndefined();
      await bobsInboxIsEmpty();
      await detach();
    });

    it("hands a group message with the canonical address, the actual sender and the full membership", async () => {
      const attached = await attach();
      await net.send("carol", "group:bob,alice", "q-group standup");
      const [call] = await callWith(attached, "q-group standup");
      expect(call).toMatchObject({
        conversation: "group:alice,bob,carol",
        chatType: "group",
        sender: "agent:carol",
        members: ["agent:alice", "agent:bob", "agent:carol"],
      });
      await bobsInboxIsEmpty();
      await detach();
    });

    it("keeps each sender's identity apart in one group", async () => {
      const attached = await attach();
      await net.send("alice", "group:alice,bob,carol", "q-identity from alice");
      await net.send("carol", "group:alice,bob,carol", "q-identity from carol");
      const calls = await callWith(attached, "q-identity", 2);
      expect(calls.map((call) => [call.sender, call.text.includes(`from ${call.sender.slice(6)}`)])).toEqual([
        ["agent:alice", true],
        ["agent:carol", true],
      ]);
      await detach();
    });

    it("never offers the host its own post, which every other member receives", async () => {
      const attached = await attach();
      await attached.send("group:alice,bob,carol", "q-own bob says hi");
      for (const name of ["alice", "carol"]) {
        await waitFor(net.agent(name), (e) => JSON.stringify(e.item).includes("q-own bob says hi"));
      }
      await net.send("alice", "agent:bob", "q-own marker after");
      await callWith(attached, "q-own marker after");
      expect(attached.calls.filter((call) => call.text.includes("q-own bob says hi"))).toEqual([]);
      await detach();
    });

    it("catches up on what arrived while the host and its daemon were offline, in order", async () => {
      await net.stop("bob");
      await net.send("alice", "agent:bob", "q-offline one");
      await net.send("carol", "agent:bob", "q-offline two");
      await net.restart("bob");
      const attached = await attach();
      const calls = await callWith(attached, "q-offline", 2);
      expect(calls.map((call) => [call.sender, call.text.includes("one") ? "one" : "two"])).toEqual([
        ["agent:alice", "one"],
        ["agent:carol", "two"],
      ]);
      await bobsInboxIsEmpty();
      await detach();
    });

    it("keeps one active subscription: a second attachment takes the inbox and each item reaches one host", async () => {
      const first = await attach();
      const second = await driver.attach(bobsEndpoint());
      try {
        await eventually(
          async () => (first.failures.length > 0 ? true : undefined),
          CALL_TIMEOUT_MS,
          "the first host to lose the inbox",
        );
        expect(String(first.failures[0])).toContain("consumer-taken");
        // The first host's own restart would take the inbox back; it is stopped instead.
        await detach();
        await net.send("alice", "agent:bob", "q-one-subscription");
        await callWith(second, "q-one-subscription");
        await bobsInboxIsEmpty();
        expect(first.calls.filter((call) => call.text.includes("q-one-subscription"))).toEqual([]);
      } finally {
        await second.detach();
      }
    });

    it("acknowledges an item only after the host callback has succeeded", async () => {
      const attached = await attach();
      const held = attached.holdNextCallback();
      await net.send("alice", "agent:bob", "q-handoff");
      await held.reached;
      const [pending] = await readAll(net.agent("bob"));
      expect(pending).toBeDefined();
      expect(tap.acks).not.toContain(pending!.deliveryToken);
      held.release();
      await eventually(
        async () => (tap.acks.includes(pending!.deliveryToken) ? true : undefined),
        CALL_TIMEOUT_MS,
        "the acknowledgment",
      );
      await bobsInboxIsEmpty();
      await detach();
    });

    it("propagates a failing callback to the host, leaves the item pending and offers it again", async () => {
      const attached = await attach();
      attached.failCallbacks(1);
      const failuresBefore = attached.failures.length;
      await net.send("alice", "agent:bob", "q-callback-fails");
      const [failed, retried] = await callWith(attached, "q-callback-fails", 2);
      expect(attached.failures.length).toBeGreaterThan(failuresBefore);
      expect(retried!.bytes).toBe(failed!.bytes);
      await bobsInboxIsEmpty();
      const tokens = tap.reads
        .filter((read) => read.bytes.includes("q-callback-fails"))
        .map((read) => read.deliveryToken);
      expect(new Set(tokens).size).toBe(1);
      expect(tap.acks.filter((token) => token === tokens[0])).toHaveLength(1);
      await detach();
    });

    it("replays one stable delivery after a lost acknowledgment: the same token and the same payload, byte for byte", async () => {
      const attached = await attach();
      tap.loseAcks(1);
      await net.send("alice", "agent:bob", "q-lost-ack");
      const [first, replay] = await callWith(attached, "q-lost-ack", 2);
      await bobsInboxIsEmpty();
      const reads = tap.reads.filter((read) => read.bytes.includes("q-lost-ack"));
      expect(reads.length).toBeGreaterThanOrEqual(2);
      expect(new Set(reads.map((read) => read.deliveryToken)).size).toBe(1);
      expect(new Set(reads.map((read) => read.bytes)).size).toBe(1);
      expect(tap.lostAcks).toContain(reads[0]!.deliveryToken);
      expect(replay!.bytes).toBe(first!.bytes);
      await detach();
    });
  });
}

/**
 * Seed 000: bounded workers settle checks in conversation order. With two workers and a judge that
 * keeps each check in flight until the test releases it, a third conversation's check waits for a
 * free worker, and a conversation's second check waits for its first, whatever else is free; a
 * held check lets the next one in its conversation run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeJudge } from "../harness/fake-judge.js";
import { eventually } from "../harness/mcp.js";
import { Network, readAll, type InboxItem } from "../harness/network.js";
import { ownerClient } from "../harness/owner.js";
import { injectionRule, judgeMiddleware, setPolicy } from "./policies.js";

const textOf = (e: InboxItem) => e.item.message?.content?.[0]?.text as string | undefined;

describe("the firewall's bounded workers", () => {
  let net: Network;
  let judge: FakeJudge;
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  let inFlight = 0;
  let most = 0;

  beforeAll(async () => {
    judge = await FakeJudge.start();
    net = await Network.start(["alice", "carol", "dave"]);
    await net.add("bob", { extraArgs: ["--firewall-workers", "2"] });
    await setPolicy(net.agent("bob").daemon, {
      mode: "enforce",
      middlewares: [judgeMiddleware(judge.endpoint, [injectionRule("inbound")], { timeoutMs: 60_000 })],
    });
    for (const text of ["alice-1", "alice-2", "carol-1", "dave-1"])
      judge.on(
        `ordered ${text}`,
        async () => {
          started.push(text);
          most = Math.max(most, ++inFlight);
          await new Promise<void>((resolve) => gates.set(text, resolve));
          inFlight--;
          return { choice: "no", probability: 0.95 };
        },
        1,
      );
  });
  afterAll(async () => {
    for (const open of gates.values()) open();
    await net?.close();
    await judge?.close();
  });

  const stored = (conv: string, count: number) =>
    eventually(async () => {
      const { records } = await ownerClient(net.agent("bob").daemon).history.records.query({ conversation: conv });
      return records.length >= count ? true : undefined;
    });
  const release = async (text: string) => {
    await eventually(async () => (gates.has(text) ? true : undefined));
    gates.get(text)!();
  };

  it("starts at most two checks at once, and a conversation's checks one after another in order", async () => {
    await net.send("alice", "agent:bob", "ordered alice-1");
    await net.send("carol", "agent:bob", "ordered carol-1");
    await eventually(async () => (started.length === 2 ? true : undefined));
    await net.send("alice", "agent:bob", "ordered alice-2");
    await net.send("dave", "agent:bob", "ordered dave-1");
    await stored("direct:alice,bob", 2);
    await stored("direct:bob,dave", 1);
    // Both workers are busy: dave's check waits for one, alice's second waits for her first.
    expect(started).toEqual(["alice-1", "carol-1"]);
    await release("carol-1");
    await eventually(async () => (started.length === 3 ? true : undefined));
    expect(started).toEqual(["alice-1", "carol-1", "dave-1"]);
    await release("alice-1");
    await eventually(async () => (started.length === 4 ? true : undefined));
    expect(started).toEqual(["alice-1", "carol-1", "dave-1", "alice-2"]);
    await release("dave-1");
    await release("alice-2");
    expect(most).toBe(2);
    const texts = await eventually(async () => {
      const seen = (await readAll(net.agent("bob"))).map(textOf);
      return seen.length === 4 ? seen : undefined;
    });
    expect(texts.indexOf("ordered alice-1")).toBeLessThan(texts.indexOf("ordered alice-2"));
  });

  it("lets a hold advance its conversation's admission frontier: the next check runs and admits", async () => {
    judge.on("held ahead of another", { choice: "yes", probability: 0.97 }, 1);
    judge.on("admitted behind a hold", { choice: "no", probability: 0.95 }, 1);
    await net.send("carol", "agent:bob", "held ahead of another");
    await net.send("carol", "agent:bob", "admitted behind a hold");
    const texts = await eventually(async () => {
      const seen = (await readAll(net.agent("bob"))).map(textOf);
      return seen.includes("admitted behind a hold") ? seen : undefined;
    });
    expect(texts).not.toContain("held ahead of another");
    const { holds } = await ownerClient(net.agent("bob").daemon).holds.list.query();
    expect(holds.map((h) => JSON.stringify(h.item))).toEqual([expect.stringContaining("held ahead of another")]);
  });
});

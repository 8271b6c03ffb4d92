/**
 * One direct conversation written from both ends at once: each daemon stores its own certified
 * posts from their certificates and the other's from the router's pushes, interleaved, and keeps
 * the conversation's tip across both (history.service.ts). Both histories must hold every record
 * once, in one order, with the contiguous cursor on the last, and keep doing so for the posts after.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownerClient } from "./harness/owner.js";
import { Network, waitForItems } from "./harness/network.js";
import { runCli } from "./harness/processes.js";

const CONV = "direct:alice,bob";
const EACH = 30;
const IN_FLIGHT = 4;

describe("a direct conversation written from both ends at once", () => {
  let net: Network;

  beforeAll(async () => {
    net = await Network.start(["alice", "bob"]);
  });
  afterAll(async () => {
    await net?.close();
  });

  /** `count` posts from `from` to `to`, `IN_FLIGHT` at a time. */
  const burst = (from: string, to: string, count: number) =>
    Promise.all(
      Array.from({ length: IN_FLIGHT }, async (_, lane) => {
        for (let i = lane; i < count; i += IN_FLIGHT) await net.send(from, `agent:${to}`, `${from} ${i}`);
      }),
    );

  /** A daemon's records of the conversation (seq, hash, author) and its contiguous cursor. */
  const historyOf = async (name: string) => {
    const owner = ownerClient(net.agent(name).daemon);
    const { records } = await owner.history.records.query({ conversation: CONV, limit: 200 });
    const { conversations } = await owner.history.conversations.query({});
    return {
      records: records.map((r) => ({ seq: r.seq, hash: r.recordHash, author: r.author })),
      cursor: conversations.find((c) => c.conversation === CONV)?.records,
    };
  };

  const expectOneHistory = async (total: number) => {
    const [alice, bob] = [await historyOf("alice"), await historyOf("bob")];
    expect(alice.records.map((r) => r.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(bob.records).toEqual(alice.records);
    expect([alice.cursor, bob.cursor]).toEqual([total, total]);
    expect(alice.records.filter((r) => r.author === "agent:alice")).toHaveLength(total / 2);
  };

  it("stores every record once, in one order, at both ends, with the cursor on the last", async () => {
    await Promise.all([burst("alice", "bob", EACH), burst("bob", "alice", EACH)]);
    await waitForItems(net.agent("alice"), EACH);
    await waitForItems(net.agent("bob"), EACH);
    await expectOneHistory(2 * EACH);
  });

  it("goes on from there, one post from each end after the other", async () => {
    for (let i = 0; i < 3; i++) {
      await net.send("alice", "agent:bob", `alice after ${i}`);
      await net.send("bob", "agent:alice", `bob after ${i}`);
    }
    await waitForItems(net.agent("alice"), EACH + 3);
    await waitForItems(net.agent("bob"), EACH + 3);
    await expectOneHistory(2 * EACH + 6);
  });

  it("leaves histories that verify", async () => {
    const dirs = ["alice", "bob"].map((name) => net.agent(name).daemon.dataDir);
    await net.stop("alice");
    await net.stop("bob");
    for (const data of dirs) {
      const run = runCli(["history", "verify", "--data", data]);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain(`${2 * EACH + 6} records: every record verifies`);
    }
  });
});

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createStatementCounter } from "@social-harness/sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDaemonStore, turnTransaction, type DaemonStore } from "./database.js";
import type { HeldStatements } from "./raw-statements.js";
import { TurnWrites, type Transact } from "./turn-writes.js";

/** A transact that records each transaction's writes and can be slowed down. */
function recording(delayMs = 0) {
  const transactions: number[] = [];
  const held = {} as HeldStatements;
  const transact: Transact = async <T>(_durable: boolean, fn: (h: HeldStatements) => T): Promise<T> => {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const value = fn(held);
    transactions.push(Array.isArray(value) ? value.length : 1);
    return value;
  };
  return { transact, transactions };
}

describe("writes of one turn", () => {
  it("commit together in one transaction, each caller getting its own write's value", async () => {
    const { transact, transactions } = recording();
    const turn = new TurnWrites(transact);
    const values = await Promise.all([1, 2, 3, 4, 5].map((n) => turn.write("durable", () => n * 10)));
    expect(values).toEqual([10, 20, 30, 40, 50]);
    expect(transactions).toEqual([5]);
  });

  it("run alone after their batch failed, so only the failing write fails", async () => {
    const turn = new TurnWrites(recording().transact);
    const outcomes = await Promise.allSettled([
      turn.write("relaxed", () => "a"),
      turn.write("relaxed", () => {
        throw new Error("this one");
      }),
      turn.write("relaxed", () => "c"),
    ]);
    expect(outcomes.map((o) => (o.status === "fulfilled" ? o.value : (o.reason as Error).message))).toEqual([
      "a",
      "this one",
      "c",
    ]);
  });

  it("commit in the order of their turns, even when an earlier turn's transaction waits", async () => {
    const order: string[] = [];
    const { transact } = recording(20);
    const turn = new TurnWrites(transact);
    const first = turn.write("durable", () => order.push("first"));
    await new Promise((resolve) => setImmediate(resolve));
    const second = turn.write("durable", () => order.push("second"));
    await Promise.all([first, second]);
    expect(order).toEqual(["first", "second"]);
  });
});

describe("turnTransaction on the daemon's database", () => {
  let dir: string;
  let store: DaemonStore;
  const counter = createStatementCounter();
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "sh-turn-"));
    store = await openDaemonStore(path.join(dir, "daemon.db"), { counter });
    store.sqlite.exec("CREATE TABLE t (v INTEGER)");
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("stores the durable writes of one turn with one commit", async () => {
    const commits = counter.counts.commits;
    const inserted = await Promise.all(
      Array.from({ length: 8 }, (_, v) =>
        turnTransaction(store.db, "durable", (held) => held.run("INSERT INTO t (v) VALUES (?)", [v])),
      ),
    );
    await store.durable();
    expect(inserted).toEqual(Array(8).fill(1));
    expect(counter.counts.commits - commits).toBe(1);
    expect(store.sqlite.prepare("SELECT count(*) FROM t").pluck().get()).toBe(8);
  });
});

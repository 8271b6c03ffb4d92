/**
 * The pending set is read through the partial index inbox_pending (migration 0010), which SQLite
 * uses only when a query names its condition `state = 'pending'` literally. A read of the pending
 * set that binds the state instead scans every row the inbox ever held (10^6 and more); these
 * tests ask SQLite for the plan of every such statement the inbox's reads run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createStatementCounter, type StatementCounter } from "@social-harness/sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { heldTransaction, openDaemonStore, type DaemonStore } from "../db/database.js";
import {
  countPending,
  firstPageRows,
  listPendingRows,
  oldestPendingHeld,
  pageJson,
  pageRows,
  pendingRequestRows,
  pendingRows,
  requestRowsIn,
} from "./inbox.store.js";

/** A statement counter that keeps the SQL of every statement it is shown (its counts stay zero). */
function recording(): StatementCounter & { readonly sql: Set<string> } {
  const sql = new Set<string>();
  return { sql, counts: createStatementCounter().counts, count: (text) => void sql.add(text) };
}

describe("reads of the pending inbox", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function open(counter: StatementCounter): Promise<DaemonStore> {
    const dir = mkdtempSync(path.join(tmpdir(), "sh-plans-"));
    const store = await openDaemonStore(path.join(dir, "daemon.db"), { counter });
    cleanups.push(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return store;
  }

  const planOf = (store: DaemonStore, sql: string): string[] => {
    const parameters = new Array<null>(sql.split("?").length - 1).fill(null);
    const rows = store.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as { detail: string }[];
    return rows.map((row) => row.detail);
  };

  it("find the pending rows through the partial index, never by scanning the table", async () => {
    const counter = recording();
    const store = await open(counter);
    const { db } = store;
    counter.sql.clear(); // the migrations' statements, some naming tables they since dropped
    await pendingRows(db, 0, 100, 10);
    await pageRows(db, 0, 100, 10);
    await firstPageRows(db, 50);
    await pageJson(db, 0, 100);
    await countPending(db);
    await listPendingRows(db, undefined, 20);
    await listPendingRows(db, 40, 20);
    await heldTransaction(db, "durable", (held) => oldestPendingHeld(held));
    await requestRowsIn(db, "group:team", 0);
    await pendingRequestRows(db);

    const reads = [...counter.sql].filter((sql) => /from\s+"?inbox"?\s/i.test(sql));
    const pending = reads.filter((sql) => sql.includes("'pending'"));
    expect(pending.length).toBeGreaterThanOrEqual(8);
    for (const sql of pending) {
      const plan = planOf(store, sql).join("; ");
      expect(plan, sql).toMatch(/USING (COVERING )?INDEX inbox_pending/);
    }
    // No read of the inbox scans it whole: the rest go by token or by a range of ids.
    for (const sql of reads) {
      for (const step of planOf(store, sql)) expect(step, sql).not.toMatch(/^SCAN inbox$/);
    }
  });

  it("keeps no entry for a settled row", async () => {
    const store = await open(recording());
    const insert = store.sqlite.prepare(
      "INSERT INTO inbox (token, kind, item, size, conv, state, created_at) VALUES (?, 'multicast', '{}', 2, 'direct:a,b', ?, 0)",
    );
    for (let i = 0; i < 10; i++) insert.run(`dlv_${i}`, i < 3 ? "pending" : "acknowledged");
    const entries = store.sqlite.prepare(
      "SELECT count(*) AS n FROM inbox INDEXED BY inbox_pending WHERE state = 'pending'",
    );
    expect(entries.get()).toEqual({ n: 3 });
    expect(await countPending(store.db)).toBe(3);
  });
});

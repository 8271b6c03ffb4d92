/**
 * Migrations that reshape tables keep what a database from before holds: a daemon's file is
 * migrated at start-up, with whatever its earlier versions wrote in it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { Migrator } from "kysely/migration";
import { afterEach, describe, expect, it } from "vitest";
import { openDaemonStore, type DaemonStore } from "../database.js";
import { daemonMigrations } from "./index.js";
import { countPending, findInboxRow } from "../../inbox/inbox.store.js";
import { countAttempts } from "../../overview/overview.store.js";
import { findOccurrence } from "../../webhooks/webhooks.store.js";
import { boundIntents } from "../../posts/intents.store.js";
import { findRecordByHash, findRecordsByHash } from "../../history/history.store.js";

const MINUTE = 60_000;
const T0 = Math.floor(Date.UTC(2026, 11, 5, 2) / (120 * MINUTE)) * 120 * MINUTE;

describe("the daemon's migrations from 0008 on", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A database file migrated up to `last` only and written through `fill`. */
  async function databaseAt(last: string, fill: (db: Kysely<any>) => Promise<void>): Promise<string> {
    const dir = mkdtempSync(path.join(tmpdir(), "sh-migrate-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, "daemon.db");
    const before = Object.fromEntries(Object.entries(daemonMigrations).filter(([name]) => name <= last));
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(file) }) });
    const provider = { getMigrations: () => Promise.resolve(before) };
    const { error } = await new Migrator({ db, provider }).migrateToLatest();
    expect(error).toBeUndefined();
    await fill(db);
    await db.destroy();
    return file;
  }

  /** The same database, then opened at the latest migration. */
  async function migratedFrom(last: string, fill: (db: Kysely<any>) => Promise<void>): Promise<DaemonStore> {
    const store = await openDaemonStore(await databaseAt(last, fill));
    cleanups.push(() => store.close());
    return store;
  }

  it("folds past webhook attempts into their subscriptions' minutes (0008)", async () => {
    const rows = [
      { subscription_id: "sub_a", outcome: "delivered", retry: 0, latency_ms: 999, at: T0 - 1 },
      { subscription_id: "sub_a", outcome: "delivered", retry: 0, latency_ms: 100, at: T0 + 10_000 },
      { subscription_id: "sub_a", outcome: "failed", retry: 1, latency_ms: 300, at: T0 + 50_000 },
      { subscription_id: "sub_a", outcome: "delivered", retry: 1, latency_ms: 50, at: T0 + MINUTE + 5_000 },
      { subscription_id: "sub_b", outcome: "suspended", retry: 1, latency_ms: 40, at: T0 + 20 * MINUTE },
    ];
    const store = await migratedFrom("0007", async (db) => {
      const values = rows.map((row) => ({ ...row, category: row.outcome === "delivered" ? null : "http_5xx" }));
      await db.insertInto("webhook_attempts").values(values).execute();
    });
    const byMinute = await countAttempts(store.db, { from: T0 - MINUTE, intervalMs: MINUTE });
    expect(byMinute).toEqual(
      expect.arrayContaining([
        { subscriptionId: "sub_a", bucket: 0, delivered: 1, failed: 0, retries: 0, meanMs: 999 },
        { subscriptionId: "sub_a", bucket: 1, delivered: 1, failed: 1, retries: 1, meanMs: 200 },
        { subscriptionId: "sub_a", bucket: 2, delivered: 1, failed: 0, retries: 1, meanMs: 50 },
        { subscriptionId: "sub_b", bucket: 21, delivered: 0, failed: 1, retries: 1, meanMs: 40 },
      ]),
    );
    expect(byMinute).toHaveLength(4);
    expect(store.sqlite.prepare("SELECT name FROM sqlite_master WHERE name = 'webhook_attempts'").all()).toEqual([]);
  });

  it("keeps stored occurrences and the pending set across their new keys and index (0009, 0010)", async () => {
    const body = Buffer.from('{"eventId":"evt_x"}');
    const store = await migratedFrom("0008", async (db) => {
      await db
        .insertInto("webhook_occurrences")
        .values({ subscription_id: "sub_a", token: "dlv_x", event_id: "evt_x", body, created_at: T0 })
        .execute();
      await db
        .insertInto("inbox")
        .values(
          ["pending", "acknowledged", "pending", "retired"].map((state, i) => ({
            token: `dlv_${i}`,
            kind: "multicast",
            item: "{}",
            size: 2,
            conv: "direct:a,b",
            state,
            created_at: T0,
          })),
        )
        .execute();
    });
    expect(await findOccurrence(store.db, "sub_a")).toEqual({
      subscriptionId: "sub_a",
      token: "dlv_x",
      eventId: "evt_x",
      body,
      createdAt: T0,
    });
    expect(await countPending(store.db)).toBe(2);
    const table = store.sqlite.prepare("SELECT sql FROM sqlite_master WHERE name = 'webhook_occurrences'").get() as {
      sql: string;
    };
    expect(table.sql).toMatch(/WITHOUT ROWID/);
  });

  it("keeps the bound intents, content and order, in their table without a rowid (0011)", async () => {
    const intents = [
      { post_id: "pst_b", conv: "direct:a,b", content: Buffer.from([0xa1, 1]), created_at: T0 + 1 },
      { post_id: "pst_a", conv: "direct:a,c", content: Buffer.from([0xa1, 2]), created_at: T0 + 1 },
      { post_id: "pst_c", conv: "direct:a,b", content: Buffer.from([0xa1, 3]), created_at: T0 },
    ];
    const store = await migratedFrom("0010", async (db) => {
      await db
        .insertInto("intents")
        .values(intents.map((i) => ({ ...i, state: "bound" })))
        .execute();
    });
    expect(await boundIntents(store.db)).toEqual(
      ["pst_c", "pst_a", "pst_b"].map((postId) => {
        const row = intents.find((i) => i.post_id === postId)!;
        return { postId, conv: row.conv, content: new Uint8Array(row.content), createdAt: row.created_at };
      }),
    );
    expect((await boundIntents(store.db, "direct:a,b")).map((i) => i.postId)).toEqual(["pst_c", "pst_b"]);
    const table = store.sqlite.prepare("SELECT sql FROM sqlite_master WHERE name = 'intents'").get() as { sql: string };
    expect(table.sql).toMatch(/WITHOUT ROWID/);
    const indexes = store.sqlite.prepare(
      "SELECT name FROM sqlite_master WHERE tbl_name = 'intents' AND type = 'index'",
    );
    expect(indexes.all()).toEqual([]);
  });

  it("keeps every stored record, each still found by its hash through the index, and hands out ids past them (0012)", async () => {
    const record = (seq: number, conv = "direct:a,b") => ({
      conv,
      seq,
      hash: `rec_${conv}_${seq}`,
      kind: "post",
      author: "a",
      post_id: `pst_${seq}`,
      at: T0,
      bytes: Buffer.from([0xa1, seq]),
      signatures: Buffer.from([0x80]),
      certificate: Buffer.from([seq]),
      disposition: seq === 2 ? "held" : "delivered",
      stored_at: T0,
    });
    const store = await migratedFrom("0011", async (db) => {
      await db
        .insertInto("records")
        .values([record(1), record(2), record(3), record(1, "direct:a,c")])
        .execute();
    });
    expect(await findRecordByHash(store.db, "direct:a,b", "rec_direct:a,b_2")).toMatchObject({
      conv: "direct:a,b",
      seq: 2,
      disposition: "held",
      bytes: new Uint8Array([0xa1, 2]),
    });
    const found = await findRecordsByHash(store.db, "direct:a,c", ["rec_direct:a,b_1", "rec_direct:a,c_1", "none"]);
    expect([...found.keys()].sort()).toEqual(["rec_direct:a,b_1", "rec_direct:a,c_1"]);
    // Copied records stay in the index (each found by hash alone, whatever conversation is named).
    const plan = store.sqlite
      .prepare("EXPLAIN QUERY PLAN SELECT * FROM records WHERE hash = ? AND hash_indexed = 1")
      .all("rec_direct:a,b_1") as { detail: string }[];
    expect(plan.map((p) => p.detail).join(" ")).toMatch(/records_by_hash/);
    expect(store.sqlite.prepare("SELECT count(*) AS n FROM records WHERE hash_indexed = 1").get()).toEqual({ n: 4 });
    expect(() => store.sqlite.prepare("INSERT INTO records SELECT * FROM records WHERE seq = 3").run()).toThrow(
      /UNIQUE/,
    );
    const next = store.sqlite
      .prepare(
        "INSERT INTO records (conv, seq, hash, kind, author, post_id, at, bytes, signatures, certificate, disposition, stored_at, hash_indexed) " +
          "SELECT conv, 4, 'rec_4', kind, author, 'pst_4', at, bytes, signatures, certificate, disposition, stored_at, 0 FROM records WHERE id = 1",
      )
      .run();
    expect(Number(next.lastInsertRowid)).toBe(5);
  });

  it("keeps every inbox item under its id and token, and hands out ids past them without a counter (0013)", async () => {
    const item = (i: number, state: string) => ({
      token: `dlv_${i}`,
      kind: "multicast",
      item: `{"n":${i}}`,
      guidance: i === 2 ? "held by the owner's pattern" : null,
      size: 8,
      conv: "direct:a,b",
      record_hash: `rec_${i}`,
      state,
      created_at: T0 + i,
      settled_at: state === "pending" ? null : T0 + 10,
      settled_by: state === "pending" ? null : "runtime",
    });
    const rows = [item(1, "pending"), item(2, "acknowledged"), item(3, "pending"), item(4, "acknowledged")];
    let before: unknown[] = [];
    const store = await migratedFrom("0012", async (db) => {
      await db.insertInto("inbox").values(rows).execute();
      before = (await sql`SELECT * FROM inbox ORDER BY id`.execute(db)).rows;
    });
    expect(store.sqlite.prepare("SELECT * FROM inbox ORDER BY id").all()).toEqual(before);
    expect(await countPending(store.db)).toBe(2);
    expect((await findInboxRow(store.db, "dlv_3"))?.item).toBe('{"n":3}');
    const table = store.sqlite.prepare("SELECT sql FROM sqlite_master WHERE name = 'inbox'").get() as { sql: string };
    expect(table.sql).not.toMatch(/AUTOINCREMENT/i);
    expect(store.sqlite.prepare("SELECT count(*) AS n FROM sqlite_sequence WHERE name = 'inbox'").get()).toEqual({
      n: 0,
    });
    const plan = store.sqlite
      .prepare("EXPLAIN QUERY PLAN SELECT id FROM inbox WHERE state = 'pending' AND id > 0 ORDER BY id")
      .all() as { detail: string }[];
    expect(plan.map((p) => p.detail).join(" ")).toMatch(/inbox_pending/);
    const insert = store.sqlite.prepare(
      "INSERT INTO inbox (token, kind, item, size, state, created_at) VALUES (?, 'multicast', '{}', 2, 'pending', ?)",
    );
    expect(() => insert.run("dlv_1", T0)).toThrow(/UNIQUE/);
    expect(Number(insert.run("dlv_5", T0).lastInsertRowid)).toBe(5);
  });

  it("leaves the database as it was when a migration fails half-way, and migrates it at the next start (0011)", async () => {
    // A rowid table lets a TEXT primary key be NULL; the keyed table refuses the row, so 0011
    // fails after its new table was created and before the old one was dropped.
    const intent = { conv: "direct:a,b", content: Buffer.from([0xa1]), state: "bound", created_at: T0 };
    const file = await databaseAt("0010", async (db) => {
      await db
        .insertInto("intents")
        .values([
          { post_id: "pst_a", ...intent },
          { post_id: null, ...intent },
        ])
        .execute();
    });

    await expect(openDaemonStore(file)).rejects.toThrow(/migration failed/);
    const raw = new Database(file);
    const tables = raw.prepare("SELECT name, sql FROM sqlite_master WHERE name LIKE 'intents%' AND type = 'table'");
    expect(tables.all()).toEqual([{ name: "intents", sql: expect.not.stringMatching(/WITHOUT ROWID/) }]);
    expect(raw.prepare("SELECT count(*) AS n FROM intents").get()).toEqual({ n: 2 });
    expect(raw.prepare("SELECT name FROM kysely_migration WHERE name LIKE '0011%'").all()).toEqual([]);
    raw.prepare("DELETE FROM intents WHERE post_id IS NULL").run();
    raw.close();

    const store = await openDaemonStore(file);
    cleanups.push(() => store.close());
    expect((await boundIntents(store.db)).map((i) => i.postId)).toEqual(["pst_a"]);
  });
});

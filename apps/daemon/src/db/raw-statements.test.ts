/**
 * The hot path's transactions of prepared statements (RawStatements.transactNow, heldTransaction):
 * at once on an idle connection, rolled back when their body throws, counted for `durable()` only
 * when durable and written, and in Kysely's turn when another transaction is open.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { heldTransaction, openDaemonStore, type DaemonStore } from "./database.js";
import { RawStatements } from "./raw-statements.js";

describe("transactions of prepared statements", () => {
  let dir: string;
  let store: DaemonStore;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "sh-raw-"));
    store = await openDaemonStore(path.join(dir, "daemon.db"));
    store.sqlite.exec("CREATE TABLE t (v INTEGER)");
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const values = () => store.sqlite.prepare("SELECT v FROM t ORDER BY v").pluck().all();

  it("commits at once on an idle connection, and rolls back what a throwing body wrote", async () => {
    const raw = RawStatements.of(store.db);
    expect(raw.transactNow(true, (held) => held.run("INSERT INTO t (v) VALUES (?)", [1]))).toBe(1);
    expect(() =>
      raw.transactNow(true, (held) => {
        held.run("INSERT INTO t (v) VALUES (?)", [2]);
        throw new Error("after the insert");
      }),
    ).toThrow("after the insert");
    expect(values()).toEqual([1]);
    expect(store.sqlite.inTransaction).toBe(false);
  });

  it("counts a durable commit that wrote, so durable() fsyncs it; a relaxed or read-only one is not counted", async () => {
    const raw = RawStatements.of(store.db);
    const sync = (raw as unknown as { sync: { committed: number } }).sync;
    const before = sync.committed;
    raw.transactNow(false, (held) => held.run("INSERT INTO t (v) VALUES (?)", [1]));
    raw.transactNow(true, (held) => held.all("SELECT v FROM t", []));
    expect(sync.committed).toBe(before);
    raw.transactNow(true, (held) => held.run("INSERT INTO t (v) VALUES (?)", [2]));
    expect(sync.committed).toBe(before + 1);
    await store.durable();
  });

  it("counts a write read through all() (… RETURNING) as a write, in a transaction and on its own", async () => {
    const raw = RawStatements.of(store.db);
    const sync = (raw as unknown as { sync: { committed: number } }).sync;
    const before = sync.committed;
    const insert = "INSERT INTO t (v) VALUES (?) RETURNING v";
    expect(raw.transactNow(true, (held) => held.all(insert, [3]))).toEqual([{ v: 3 }]);
    expect(sync.committed).toBe(before + 1);
    expect(raw.all(store.db, insert, [4])).toEqual([{ v: 4 }]);
    expect(sync.committed).toBe(before + 2);
    await store.durable();
    expect(values()).toEqual([3, 4]);
  });

  it("refuses to begin inside an open transaction, and heldTransaction then waits its turn", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const open = store.db.transaction().execute(async (trx) => {
      await sql`INSERT INTO t (v) VALUES (1)`.execute(trx);
      await gate;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(store.sqlite.inTransaction).toBe(true);
    expect(() => RawStatements.of(store.db).transactNow(true, () => undefined)).toThrow(/already open/);
    const held = heldTransaction(store.db, "durable", (h) => h.run("INSERT INTO t (v) VALUES (?)", [2]));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(values()).toEqual([1]); // the open transaction's own insert; ours waits behind it
    release();
    await open;
    expect(await held).toBe(1);
    expect(values()).toEqual([1, 2]);
  });

  it("reads rows as arrays in the SELECT's column order, at once or in Kysely's turn, and refuses a write", async () => {
    store.sqlite.exec("CREATE TABLE w (id INTEGER PRIMARY KEY, name TEXT, note TEXT)");
    store.sqlite.prepare("INSERT INTO w (id, name, note) VALUES (?, ?, ?)").run(7, "seven", null);
    const raw = RawStatements.of(store.db);
    // "2" would come first among an object's keys (an integer key): the arrays keep the SELECT's order.
    const read = 'SELECT note, name, id, 1 AS "2" FROM w WHERE id > ?';
    expect(raw.values(store.db, read, [0])).toEqual([[null, "seven", 7, 1]]);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const open = store.db.transaction().execute(async () => {
      await gate;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(store.sqlite.inTransaction).toBe(true);
    const waiting = raw.values(store.db, read, [0]);
    expect(waiting).toBeInstanceOf(Promise);
    release();
    await open;
    expect(await waiting).toEqual([[null, "seven", 7, 1]]);
    expect(() => raw.values(store.db, "INSERT INTO w (name) VALUES ('x') RETURNING id", [])).toThrow(/reads/);
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { countingCommits, WalSync } from "./wal-sync.js";

interface Db {
  t: { v: number };
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function open(): Promise<{ db: Kysely<Db>; sync: WalSync }> {
  const dir = mkdtempSync(path.join(tmpdir(), "wal-sync-"));
  dirs.push(dir);
  const file = path.join(dir, "d.db");
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.exec("CREATE TABLE t (v INTEGER)");
  const sync = new WalSync(`${file}-wal`);
  const db = new Kysely<Db>({ dialect: new SqliteDialect({ database: countingCommits(sqlite, sqlite, sync) }) });
  return { db, sync };
}

async function fsyncsReach(sync: WalSync, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (sync.fsyncs < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} fsyncs after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe("WalSync", () => {
  it("fsyncs before durable() resolves after a commit, and not when nothing was committed", async () => {
    const { db, sync } = await open();
    await db.transaction().execute((trx) => trx.insertInto("t").values({ v: 1 }).execute());
    await sync.durable();
    expect(sync.fsyncs).toBe(1);
    await db.selectFrom("t").selectAll().execute();
    await sync.durable();
    expect(sync.fsyncs).toBe(1);
    await db.insertInto("t").values({ v: 2 }).execute();
    await sync.durable();
    expect(sync.fsyncs).toBe(2);
    await sync.close();
    await db.destroy();
  });

  it("covers every commit made while the fsync before it ran with one more fsync", async () => {
    const { db, sync } = await open();
    await Promise.all(
      Array.from({ length: 40 }, async (_, v) => {
        await db.transaction().execute((trx) => trx.insertInto("t").values({ v }).execute());
        await sync.durable();
      }),
    );
    expect(sync.fsyncs).toBeGreaterThanOrEqual(1);
    expect(sync.fsyncs).toBeLessThan(40);
    await sync.close();
    await db.destroy();
  });

  it("needs no fsync for commits made inside relaxed()", async () => {
    const { db, sync } = await open();
    await sync.relaxed(() => db.transaction().execute((trx) => trx.insertInto("t").values({ v: 1 }).execute()));
    await sync.durable();
    expect(sync.fsyncs).toBe(0);
    await sync.close();
    await db.destroy();
  });

  it("start() runs the fsync before anyone waits, and durable() then waits for that one", async () => {
    const { db, sync } = await open();
    await db.insertInto("t").values({ v: 1 }).execute();
    sync.start();
    sync.start();
    // Nobody awaits durable(): the fsync happens all the same, once.
    await fsyncsReach(sync, 1);
    await sync.durable();
    expect(sync.fsyncs).toBe(1);
    // Nothing new was committed, so a start() now has nothing to fsync.
    sync.start();
    await sync.durable();
    expect(sync.fsyncs).toBe(1);
    await sync.close();
    await db.destroy();
  });

  it("fails every durable() after one failed fsync, even one that start() ran unawaited", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "wal-sync-"));
    dirs.push(dir);
    // The WAL path names no file, so the fsync's open fails as a failed fsync would.
    const sync = new WalSync(path.join(dir, "missing", "d.db-wal"));
    sync.committedOne(true);
    sync.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(sync.durable()).rejects.toThrow(/ENOENT/);
    // The file exists now, so an fsync would succeed; the failure stands.
    mkdirSync(path.join(dir, "missing"));
    writeFileSync(path.join(dir, "missing", "d.db-wal"), "");
    sync.committedOne(true);
    await expect(sync.durable()).rejects.toThrow(/ENOENT/);
    expect(sync.fsyncs).toBe(0);
  });
});

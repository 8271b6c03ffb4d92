import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import type { CommitPlace, CommitPlacementOptions } from "@social-harness/sqlite";
import { countingCommits, WalSync } from "./wal-sync.js";

interface Db {
  t: { v: number };
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function openSync(
  options: CommitPlacementOptions = {},
): Promise<{ db: Kysely<Db>; sync: WalSync; sqlite: Database.Database }> {
  const dir = mkdtempSync(path.join(tmpdir(), "wal-sync-"));
  dirs.push(dir);
  const file = path.join(dir, "d.db");
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.exec("CREATE TABLE t (v INTEGER)");
  const sync = new WalSync(`${file}-wal`, options);
  const db = new Kysely<Db>({ dialect: new SqliteDialect({ database: countingCommits(sqlite, sqlite, sync) }) });
  return { db, sync, sqlite };
}

async function fsyncsReach(sync: WalSync, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (sync.fsyncs < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} fsyncs after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe.each<CommitPlace>(["loop", "thread"])("WalSync, fsyncs on the %s", (placement) => {
  const open = (options: CommitPlacementOptions = {}) => openSync({ start: placement, ...options });

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

  it("fsyncs a relaxed transaction whose body said mustSurvive, and only that one", async () => {
    const { db, sync } = await open();
    const insert = (v: number, survive: boolean) =>
      sync.relaxed(() =>
        db.transaction().execute(async (trx) => {
          await trx.insertInto("t").values({ v }).execute();
          if (survive) sync.mustSurvive();
        }),
      );
    await insert(1, true);
    await sync.durable();
    expect(sync.fsyncs).toBe(1);
    await insert(2, false);
    await sync.durable();
    expect(sync.fsyncs).toBe(1);
    // A body that said so and then failed leaves nothing behind for the next relaxed commit.
    await expect(
      sync.relaxed(() =>
        db.transaction().execute(() => {
          sync.mustSurvive();
          return Promise.reject(new Error("after mustSurvive"));
        }),
      ),
    ).rejects.toThrow("after mustSurvive");
    await insert(3, false);
    await sync.durable();
    expect(sync.fsyncs).toBe(1);
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
    const sync = new WalSync(path.join(dir, "missing", "d.db-wal"), { start: placement });
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

describe("WalSync placement", () => {
  it("covers every commit of one turn with one fsync on the loop", async () => {
    const { sqlite, sync } = await openSync();
    const insert = sqlite.prepare("INSERT INTO t (v) VALUES (?)");
    for (let v = 0; v < 10; v++) {
      insert.run(v);
      sync.committedOne(true);
    }
    await Promise.all(Array.from({ length: 10 }, () => sync.durable()));
    expect(sync.fsyncs).toBe(1);
    await sync.close();
    sqlite.close();
  });

  it("moves fsyncs to the thread pool when their median is slow, says so, and times the disk on the loop now and then", async () => {
    const moves: CommitPlace[] = [];
    // Every fsync counts as slow: the first full window of samples moves them.
    const { sqlite, sync } = await openSync({
      leaveMs: -1,
      returnMs: -2,
      onMove: (to) => moves.push(to),
    });
    const insert = sqlite.prepare("INSERT INTO t (v) VALUES (?)");
    for (let v = 0; v < 15 + 64; v++) {
      insert.run(v);
      sync.committedOne(true);
      await sync.durable();
      if (v < 14) expect(sync.place).toBe("loop");
    }
    expect(sync.place).toBe("thread");
    expect(sync.fsyncs).toBe(79);
    expect(moves).toEqual(["thread"]);
    await sync.close();
    sqlite.close();
  });

  it("brings fsyncs back to the loop once probes on the loop find the disk fast again", async () => {
    const moves: CommitPlace[] = [];
    const { sqlite, sync } = await openSync({
      start: "thread",
      leaveMs: 60_000,
      returnMs: 30_000,
      onMove: (to) => moves.push(to),
    });
    const insert = sqlite.prepare("INSERT INTO t (v) VALUES (?)");
    // One fsync in 32 runs on the loop while they are on the pool: 15 such probes bring them back.
    for (let v = 0; v < 32 * 15 && sync.place === "thread"; v++) {
      insert.run(v);
      sync.committedOne(true);
      await sync.durable();
    }
    expect(sync.place).toBe("loop");
    expect(moves).toEqual(["loop"]);
    await sync.close();
    sqlite.close();
  });

  it("keeps fsyncs on the loop while the disk answers within the limit", async () => {
    const { sqlite, sync } = await openSync({ leaveMs: 60_000, returnMs: 30_000 });
    const insert = sqlite.prepare("INSERT INTO t (v) VALUES (?)");
    for (let v = 0; v < 30; v++) {
      insert.run(v);
      sync.committedOne(true);
      await sync.durable();
    }
    expect(sync.place).toBe("loop");
    await sync.close();
    sqlite.close();
  });
});

/**
 * Binding and retiring intents. How a bind ends when its commit fails after the intents were
 * inserted (seed 003 "Closed failures"): the intent is looked for, so a commit that provably did
 * not happen is absent-after-commit (persistence-failed), and one whose intent is there is unknown.
 * A settled intent is deleted; migration 0006 deletes those older databases kept, and 0007 the
 * index that told the open ones from them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import BetterSqlite from "better-sqlite3";
import { Kysely, sql, SqliteDialect } from "kysely";
import { Migrator } from "kysely/migration";
import { afterEach, describe, expect, it } from "vitest";
import type Database from "better-sqlite3";
import { openDaemonStore, type DaemonStore, type Db } from "../db/database.js";
import { RawStatements } from "../db/raw-statements.js";
import { daemonMigrations } from "../db/migrations/index.js";
import { bindDurably, boundIntents, retireIntent } from "./intents.store.js";

const intent = (postId: string) => ({ postId, conv: "dm:a,b", content: new Uint8Array([1]), createdAt: 1 });

/** The same database, except that each transaction reports a failure after it committed. */
function failingAfterCommit(db: Db): Db {
  return new Proxy(db, {
    get(target, property) {
      if (property === "transaction")
        return () => ({
          execute: async (fn: Parameters<ReturnType<Db["transaction"]>["execute"]>[0]) => {
            await target.transaction().execute(fn);
            throw new Error("the commit reported a failure");
          },
        });
      const value: unknown = Reflect.get(target, property);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * The prepared-statement path (a bind without a firewall check runs BEGIN … COMMIT itself): its
 * COMMIT commits and then reports a failure.
 */
function failingAfterPreparedCommit(db: Db): void {
  const raw = RawStatements.of(db) as unknown as { statement(sql: string): Database.Statement };
  const statement = raw.statement.bind(raw);
  raw.statement = (sql) => {
    const real = statement(sql);
    if (sql !== "COMMIT") return real;
    return {
      run: () => {
        real.run();
        throw new Error("the commit reported a failure");
      },
    } as unknown as Database.Statement;
  };
}

describe("bindDurably when the commit fails after the insert", () => {
  let store: DaemonStore;
  let dir: string;
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const open = async () => {
    dir = mkdtempSync(path.join(tmpdir(), "sh-intents-"));
    store = await openDaemonStore(path.join(dir, "daemon.db"));
  };

  it("is absent-after-commit when the commit did not happen and the intent is not there", async () => {
    await open();
    store.sqlite.pragma("foreign_keys = ON");
    store.sqlite.exec("CREATE TABLE parent (id INTEGER PRIMARY KEY)");
    store.sqlite.exec("CREATE TABLE child (pid INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)");
    // A deferred foreign key fails the COMMIT itself, after the intent's insert ran.
    const bound = await bindDurably(store.db, [intent("p_absent")], async (trx) => {
      await sql`INSERT INTO child (pid) VALUES (7)`.execute(trx);
      return true;
    });
    expect(bound).toMatchObject({ outcome: "absent-after-commit", cause: expect.any(Error) });
    expect(await boundIntents(store.db)).toEqual([]);
  });

  it("is unknown when the commit reported a failure and the intent is there", async () => {
    await open();
    // With a firewall check the bind runs in a Kysely transaction, whose commit is the one that fails.
    const bound = await bindDurably(failingAfterCommit(store.db), [intent("p_present")], () => Promise.resolve(true));
    expect(bound).toMatchObject({ outcome: "unknown", cause: expect.any(Error) });
    expect((await boundIntents(store.db)).map((i) => i.postId)).toEqual(["p_present"]);
  });

  it("is unknown the same way on the prepared-statement path (no firewall check)", async () => {
    await open();
    failingAfterPreparedCommit(store.db);
    const bound = await bindDurably(store.db, [intent("p_prepared")]);
    expect(bound).toMatchObject({ outcome: "unknown", cause: expect.any(Error) });
    expect((await boundIntents(store.db)).map((i) => i.postId)).toEqual(["p_prepared"]);
    expect(store.sqlite.inTransaction).toBe(false);
  });

  it("is failed-before-commit when the transaction failed before its insert", async () => {
    await open();
    const bound = await bindDurably(store.db, [intent("p_before")], () => Promise.reject(new Error("before")));
    expect(bound).toMatchObject({ outcome: "failed-before-commit" });
  });
});

describe("retiring settled intents", () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("deletes the retired intent and keeps the others bound", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "sh-intents-"));
    const store = await openDaemonStore(path.join(dir, "daemon.db"));
    try {
      expect(await bindDurably(store.db, [intent("p_one"), intent("p_two")])).toEqual({ outcome: "bound" });
      await retireIntent(store.db, "p_one");
      expect((await boundIntents(store.db)).map((i) => i.postId)).toEqual(["p_two"]);
      expect(store.sqlite.prepare("SELECT count(*) AS n FROM intents").get()).toEqual({ n: 1 });
    } finally {
      await store.close();
    }
  });

  it("migrations 0006 and 0007 delete the settled rows older databases kept, and no bound one, and the state index", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "sh-intents-"));
    const file = path.join(dir, "daemon.db");
    const old = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new BetterSqlite(file) }) });
    const provider = { getMigrations: () => Promise.resolve(daemonMigrations) };
    expect((await new Migrator({ db: old, provider }).migrateTo("0005_observe")).error).toBeUndefined();
    const insert = sql`INSERT INTO intents (post_id, conv, content, state, record_hash, created_at) VALUES `;
    await sql`${insert} ('p_bound', 'dm:a,b', x'01', 'bound', NULL, 1)`.execute(old);
    await sql`${insert} ('p_certified', 'dm:a,b', x'01', 'certified', 'rec_x', 1)`.execute(old);
    await sql`${insert} ('p_refused', 'dm:a,b', x'01', 'refused', NULL, 1)`.execute(old);
    await sql`${insert} ('p_earlier', 'dm:a,c', x'01', 'bound', NULL, 0)`.execute(old);
    await old.destroy();

    const store = await openDaemonStore(file);
    try {
      // The unanswered ones stay, still read in their binding order without the index.
      expect((await boundIntents(store.db)).map((i) => i.postId)).toEqual(["p_earlier", "p_bound"]);
      expect(store.sqlite.prepare("SELECT count(*) AS n FROM intents").get()).toEqual({ n: 2 });
      const indexes = store.sqlite.prepare("SELECT name FROM pragma_index_list('intents')").all();
      expect(indexes).toEqual([{ name: "sqlite_autoindex_intents_1" }]);
    } finally {
      await store.close();
    }
  });
});

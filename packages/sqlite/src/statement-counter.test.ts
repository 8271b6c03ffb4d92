import Database from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { withStatementCache } from "./statement-cache.js";
import { createStatementCounter } from "./statement-counter.js";

interface Db {
  items: { id: number; name: string };
}

describe("createStatementCounter", () => {
  let db: Kysely<Db> | undefined;
  afterEach(() => db?.destroy());

  it("counts the reads, writes, transactions and pragmas a Kysely connection runs", async () => {
    const counter = createStatementCounter();
    db = new Kysely<Db>({
      dialect: new SqliteDialect({ database: withStatementCache(new Database(":memory:"), counter) }),
    });
    await sql`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)`.execute(db);
    await sql`PRAGMA synchronous = NORMAL`.execute(db);
    await db.transaction().execute(async (trx) => {
      await trx.insertInto("items").values({ id: 1, name: "one" }).execute();
      await trx.selectFrom("items").selectAll().execute();
    });
    await db.insertInto("items").values({ id: 2, name: "two" }).execute();
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto("items").values({ id: 2, name: "again" }).execute();
      }),
    ).rejects.toThrow();
    expect(counter.counts).toEqual({
      statements: 10,
      reads: 1,
      writes: 4,
      transactions: 2,
      commits: 1,
      rollbacks: 1,
      pragmas: 1,
      autocommitWrites: 2,
    });
  });

  it("costs nothing when no counter is given", async () => {
    db = new Kysely<Db>({ dialect: new SqliteDialect({ database: withStatementCache(new Database(":memory:")) }) });
    expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(db)).rows).toEqual([{ one: 1 }]);
  });
});

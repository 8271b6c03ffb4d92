/** The better-sqlite3 handle Kysely runs on: statements prepared once, and ROLLBACK after SQLite rolled back by itself. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { withStatementCache } from "./statement-cache.js";

interface Db {
  t: { v: Uint8Array };
}

describe("withStatementCache", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function open() {
    const dir = mkdtempSync(path.join(tmpdir(), "sh-sqlite-"));
    dirs.push(dir);
    const sqlite = new Database(path.join(dir, "db.sqlite"));
    sqlite.pragma("journal_mode = WAL");
    sqlite.exec("CREATE TABLE t (v BLOB)");
    return { sqlite, db: new Kysely<Db>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) }) };
  }

  it("lets a full database's error through when SQLite has already rolled the transaction back", async () => {
    const { sqlite, db } = open();
    // A page limit makes the database full without filling a disk: SQLITE_FULL rolls the whole
    // transaction back inside SQLite, before Kysely sends its own ROLLBACK.
    sqlite.pragma(`max_page_count = ${Number(sqlite.pragma("page_count", { simple: true })) + 2}`);
    const failure = await db
      .transaction()
      .execute(async (trx) => {
        for (let i = 0; i < 20; i++)
          await trx
            .insertInto("t")
            .values({ v: Buffer.alloc(4_000) })
            .execute();
      })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "SQLITE_FULL" });
    expect(sqlite.inTransaction).toBe(false);
    expect(await db.selectFrom("t").selectAll().execute()).toEqual([]);
    await db.destroy();
  });

  it("still rolls back a transaction that is open", async () => {
    const { db } = open();
    const failure = await db
      .transaction()
      .execute(async (trx) => {
        await trx
          .insertInto("t")
          .values({ v: Buffer.from("kept?") })
          .execute();
        throw new Error("changed my mind");
      })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ message: "changed my mind" });
    expect(await db.selectFrom("t").selectAll().execute()).toEqual([]);
    await db.destroy();
  });
});

/**
 * A better-sqlite3 handle for Kysely that prepares each distinct SQL text once. Kysely's SQLite
 * driver prepares every query it runs; our queries repeat the same few shapes, so reusing the
 * prepared statement saves a parse per query on the hot paths (appends, inbox inserts). A ROLLBACK
 * after SQLite has already rolled the transaction back is a no-op, so the error that caused it
 * (a full disk, an I/O error) is the one the caller sees.
 */
import type Database from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";
import type { StatementCounter } from "./statement-counter.js";

const MAX_CACHED = 512;

/**
 * SQLite rolls the whole transaction back by itself on SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM and
 * some SQLITE_BUSY errors (https://www.sqlite.org/lang_transaction.html, "Response To Errors Within
 * A Transaction"). Kysely then sends ROLLBACK, which fails with "no transaction is active", and that
 * error replaces the one that mattered.
 */
const NOTHING_TO_ROLL_BACK: SqliteStatement = {
  reader: false,
  all: () => [],
  run: () => ({ changes: 0, lastInsertRowid: 0 }),
  iterate: () => [][Symbol.iterator](),
};

/** Kysely prepares once per query it runs, so with a counter each prepare is one statement run. */
export function withStatementCache(sqlite: Database.Database, counter?: StatementCounter): SqliteDatabase {
  const cache = new Map<string, Database.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      if (sql === "rollback" && !sqlite.inTransaction) return NOTHING_TO_ROLL_BACK;
      let statement = cache.get(sql);
      if (statement === undefined) {
        statement = sqlite.prepare(sql);
        // Shapes that vary (IN lists of different lengths) stop being cached once the cache is full.
        if (cache.size < MAX_CACHED) cache.set(sql, statement);
      }
      counter?.count(sql, statement.reader);
      return statement;
    },
  };
}

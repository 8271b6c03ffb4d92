/**
 * A better-sqlite3 handle for Kysely that prepares each distinct SQL text once. Kysely's SQLite
 * driver prepares every query it runs; our queries repeat the same few shapes, so reusing the
 * prepared statement saves a parse per query on the hot paths (appends, inbox inserts).
 */
import type Database from "better-sqlite3";
import type { SqliteDatabase } from "kysely";
import type { StatementCounter } from "./statement-counter.js";

const MAX_CACHED = 512;

/** Kysely prepares once per query it runs, so with a counter each prepare is one statement run. */
export function withStatementCache(sqlite: Database.Database, counter?: StatementCounter): SqliteDatabase {
  const cache = new Map<string, Database.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
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

/** Migrations under TransactionalSqliteDialect: the pending ones and their records commit together, or none does. */
import Database from "better-sqlite3";
import { Kysely, sql } from "kysely";
import { Migrator, type Migration } from "kysely/migration";
import { describe, expect, it } from "vitest";
import { TransactionalSqliteDialect } from "./transactional-ddl.js";

const migrations: Record<string, Migration> = {
  "0001_first": {
    up: async (db) => {
      await sql`CREATE TABLE first (id INTEGER PRIMARY KEY)`.execute(db);
    },
  },
  "0002_half_way": {
    up: async (db) => {
      await sql`CREATE TABLE second (id INTEGER PRIMARY KEY)`.execute(db);
      await sql`INSERT INTO first (id) VALUES (1)`.execute(db);
      await sql`INSERT INTO no_such_table (id) VALUES (1)`.execute(db);
    },
  },
};

describe("TransactionalSqliteDialect", () => {
  it("leaves the database as it was when a migration fails half-way: no table, row or record from any of them", async () => {
    const sqlite = new Database(":memory:");
    const db = new Kysely<any>({ dialect: new TransactionalSqliteDialect({ database: sqlite }) });
    try {
      const provider = { getMigrations: () => Promise.resolve(migrations) };
      const { error } = await new Migrator({ db, provider }).migrateToLatest();
      expect(String(error)).toMatch(/no_such_table/);
      const tables = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'kysely_%'");
      expect(tables.all()).toEqual([]);
      expect(sqlite.prepare("SELECT name FROM kysely_migration").all()).toEqual([]);
    } finally {
      await db.destroy();
    }
  });
});

/**
 * A router migrating on PostgreSQL while another process drops other schemas of the same database
 * (parallel test files, an operator's cleanup): Kysely's own introspector checked every schema by
 * name and failed with "schema … does not exist" when one vanished under its query.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openRouterStore } from "./database.js";
import { routerMigrations } from "./migrations/index.js";
import { dropTestSchemas, TEST_POSTGRES } from "../testing/postgres.js";

describe("a router's PostgreSQL schema among others", () => {
  const prefix = `own_schema_${process.pid}_${Date.now()}`;
  const dir = mkdtempSync(path.join(tmpdir(), "sh-own-schema-"));

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    const client = new pg.Client({ connectionString: TEST_POSTGRES });
    await client.connect();
    const { rows } = await client.query<{ nspname: string }>("SELECT nspname FROM pg_namespace WHERE nspname LIKE $1", [
      `${prefix}%`,
    ]);
    await client.end();
    await dropTestSchemas(...rows.map((row) => row.nspname));
  });

  // Kysely's introspector failed this in each of three runs (each within its first 200 churns).
  it("migrates while other schemas of the database are created and dropped", async () => {
    const churn = new pg.Client({ connectionString: TEST_POSTGRES });
    await churn.connect();
    let stop = false;
    const churning = (async () => {
      for (let i = 0; !stop; i++) {
        const other = `${prefix}_other_${i}`;
        await churn.query(`CREATE SCHEMA ${other}`);
        await churn.query(`CREATE TABLE ${other}.t (a int)`);
        await churn.query(`DROP SCHEMA ${other} CASCADE`);
      }
    })();
    try {
      for (let i = 0; i < 25; i++) {
        const store = await openRouterStore({
          database: `${TEST_POSTGRES}?schema=${prefix}_router_${i}`,
          sqliteFile: path.join(dir, "unused.db"),
        });
        await store.close();
      }
    } finally {
      stop = true;
      await churning;
      await churn.end();
    }
    const client = new pg.Client({ connectionString: TEST_POSTGRES });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM ${prefix}_router_24.kysely_migration`,
      );
      expect(Number(rows[0]!.n)).toBe(Object.keys(routerMigrations("postgres")).length);
    } finally {
      await client.end();
    }
  });
});

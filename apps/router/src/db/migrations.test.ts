/**
 * Migration 0003 on a router that already holds records: the unique index on hash goes, every
 * record stays in its order, and the keys that stay (conv, seq) and (author, post_id) still refuse
 * a duplicate. On SQLite the table is rebuilt, and a rerun does nothing; on PostgreSQL the
 * constraint is dropped.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { Migrator } from "kysely/migration";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { headsForMember, lockHead, lockHeads } from "../conversations/conversations.store.js";
import { openRouterStore } from "./database.js";
import { dropRecordsHashIndex } from "./migrations/0003_records_hash_not_indexed.js";
import { routerMigrations } from "./migrations/index.js";

const POSTGRES = "postgres://postgres@127.0.0.1:5432/test";

const INSERT =
  "INSERT INTO records (conv, seq, hash, author, post_id, bytes, signatures, certificate, committed_at) " +
  "VALUES (?, ?, ?, ?, ?, x'01', x'02', x'03', 1)";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A router's SQLite file migrated up to `migration`, opened for the rows a test writes under that schema. */
async function sqliteRouterAt(migration: string): Promise<{ file: string; old: Database.Database }> {
  const dir = mkdtempSync(path.join(tmpdir(), "sh-router-migrations-"));
  dirs.push(dir);
  const file = path.join(dir, "router.db");
  const before = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Database(file) }) });
  const provider = { getMigrations: () => Promise.resolve(routerMigrations("sqlite")) };
  expect((await new Migrator({ db: before, provider }).migrateTo(migration)).error).toBeUndefined();
  await before.destroy();
  return { file, old: new Database(file) };
}

/** A router's PostgreSQL schema with every migration run, a client to rewind it, and how to open it again (and migrate). */
async function postgresRouterIn(schema: string) {
  const database = `${POSTGRES}?schema=${schema}`;
  const dir = mkdtempSync(path.join(tmpdir(), "sh-router-migrations-"));
  dirs.push(dir);
  const open = () => openRouterStore({ database, sqliteFile: path.join(dir, "unused.db") });
  await (await open()).close();
  const client = new pg.Client({ connectionString: POSTGRES });
  await client.connect();
  return { open, client };
}

/** A PostgreSQL schema name, dropped with everything in it once the describe block's tests have run. */
function droppedAfterAll(schema: string): string {
  afterAll(async () => {
    const client = new pg.Client({ connectionString: POSTGRES });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });
  return schema;
}

describe("migration 0003 on SQLite", () => {
  it("rebuilds records without the hash index, keeping every record and the other keys", async () => {
    const { file, old } = await sqliteRouterAt("0002_registration_tokens");
    old.prepare(INSERT).run("direct:a,b", 1, "rec_one", "a", "pst_one");
    old.prepare(INSERT).run("direct:a,c", 1, "rec_two", "a", "pst_two");
    old.prepare(INSERT).run("direct:a,b", 2, "rec_three", "b", "pst_three");
    expect(() => old.prepare(INSERT).run("direct:a,c", 2, "rec_one", "c", "pst_four")).toThrow(/UNIQUE/);
    old.close();

    const store = await openRouterStore({ sqliteFile: file });
    await store.close();

    const after = new Database(file);
    try {
      expect(after.prepare("SELECT conv, seq, hash, author, post_id FROM records ORDER BY rowid").all()).toEqual([
        { conv: "direct:a,b", seq: 1, hash: "rec_one", author: "a", post_id: "pst_one" },
        { conv: "direct:a,c", seq: 1, hash: "rec_two", author: "a", post_id: "pst_two" },
        { conv: "direct:a,b", seq: 2, hash: "rec_three", author: "b", post_id: "pst_three" },
      ]);
      // The same hash at another position is no longer refused; a position or a PostId taken is.
      after.prepare(INSERT).run("direct:a,c", 2, "rec_one", "c", "pst_four");
      expect(() => after.prepare(INSERT).run("direct:a,b", 2, "rec_five", "c", "pst_five")).toThrow(/UNIQUE/);
      expect(() => after.prepare(INSERT).run("direct:a,b", 3, "rec_six", "a", "pst_one")).toThrow(/UNIQUE/);
    } finally {
      after.close();
    }

    // Run again on the rebuilt database: nothing changes.
    const again = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Database(file) }) });
    try {
      await dropRecordsHashIndex("sqlite").up(again);
      const count = await again
        .selectFrom("records" as never)
        .select((eb) => eb.fn.countAll().as("n"))
        .execute();
      expect(count).toEqual([{ n: 4 }]);
    } finally {
      await again.destroy();
    }
  });
});

describe("migration 0003 on PostgreSQL", () => {
  const schema = droppedAfterAll(`router_migrations_${process.pid}_${Date.now()}`);

  it("drops the hash constraint and keeps the records", async () => {
    const { open, client } = await postgresRouterIn(schema);
    // Back to the schema before 0003: the constraint as 0001 made it, and 0003 and the later ones
    // not yet run.
    try {
      await client.query(`ALTER TABLE ${schema}.records ADD CONSTRAINT records_hash_key UNIQUE (hash)`);
      await client.query(`ALTER TABLE ${schema}.registration_tokens DROP COLUMN revoked_at`);
      await client.query(`DROP TABLE ${schema}.name_withdrawals`);
      await client.query(`DELETE FROM ${schema}.kysely_migration WHERE name >= '0003'`);
      const insert = `INSERT INTO ${schema}.records (conv, seq, hash, author, post_id, bytes, signatures, certificate, committed_at) VALUES ($1, $2, $3, $4, $5, '\\x01', '\\x02', '\\x03', 1)`;
      await client.query(insert, ["direct:a,b", 1, "rec_one", "a", "pst_one"]);

      const second = await open();
      await second.close();

      const constraints = await client.query(
        `SELECT conname FROM pg_constraint WHERE conrelid = '${schema}.records'::regclass ORDER BY conname`,
      );
      expect(constraints.rows.map((r: { conname: string }) => r.conname)).not.toContain("records_hash_key");
      await client.query(insert, ["direct:a,c", 1, "rec_one", "c", "pst_two"]);
      await expect(client.query(insert, ["direct:a,b", 1, "rec_three", "c", "pst_three"])).rejects.toThrow(
        /duplicate key/,
      );
      const rows = await client.query(`SELECT hash FROM ${schema}.records ORDER BY conv, seq`);
      expect(rows.rows).toEqual([{ hash: "rec_one" }, { hash: "rec_one" }]);
    } finally {
      await client.end();
    }
  });
});

/**
 * Migration 0006 on a router that already certified records: the conversations lose the head
 * columns, and each conversation's head is read from its last record, on SQLite and on PostgreSQL.
 */
describe("migration 0006: heads from records", () => {
  const schema = droppedAfterAll(`router_heads_${process.pid}_${Date.now()}`);

  const expectHeads = async (store: Awaited<ReturnType<typeof openRouterStore>>) => {
    const dialect = store.dialect;
    await store.db.transaction().execute(async (trx) => {
      expect(await lockHead(trx, dialect, "direct:a,b")).toEqual({ seq: 2, hash: "rec_three" });
      expect(await lockHead(trx, dialect, "group:g")).toEqual({ seq: 0, hash: null });
      expect(await lockHead(trx, dialect, "direct:a,z")).toBeUndefined();
      expect(await lockHeads(trx, dialect, ["direct:a,c", "direct:a,b", "direct:a,z"])).toEqual(
        new Map([
          ["direct:a,b", { seq: 2, hash: "rec_three" }],
          ["direct:a,c", { seq: 1, hash: "rec_two" }],
        ]),
      );
    });
    const heads = await headsForMember(store.db, "a");
    expect(heads.sort((x, y) => x.conv.localeCompare(y.conv))).toEqual([
      { conv: "direct:a,b", seq: 2 },
      { conv: "direct:a,c", seq: 1 },
      { conv: "group:g", seq: 0 },
    ]);
  };

  it("drops the head columns on SQLite and reads each head from its last record", async () => {
    const { file, old } = await sqliteRouterAt("0005_name_withdrawals");
    const conversation = old.prepare(
      "INSERT INTO conversations (conv, head_seq, head_hash, created_at) VALUES (?, ?, ?, 1)",
    );
    const member = old.prepare("INSERT INTO members (conv, member) VALUES (?, ?)");
    for (const [conv, seq, hash, members] of HEADS) {
      conversation.run(conv, seq, hash);
      for (const m of members) member.run(conv, m);
    }
    for (const record of RECORDS) old.prepare(INSERT).run(...record);
    old.close();

    const store = await openRouterStore({ sqliteFile: file });
    try {
      await expectHeads(store);
    } finally {
      await store.close();
    }
    const after = new Database(file);
    try {
      const columns = after.prepare("SELECT name FROM pragma_table_info('conversations')").pluck().all();
      expect(columns).toEqual(["conv", "created_at"]);
    } finally {
      after.close();
    }
  });

  it("drops the head columns on PostgreSQL and reads each head from its last record", async () => {
    const { open, client } = await postgresRouterIn(schema);
    try {
      // Back to the schema before 0006, with conversations and records certified under it.
      await client.query(
        `ALTER TABLE ${schema}.conversations ADD COLUMN head_seq integer NOT NULL DEFAULT 0, ADD COLUMN head_hash text`,
      );
      await client.query(`DELETE FROM ${schema}.kysely_migration WHERE name >= '0006'`);
      for (const [conv, seq, hash, members] of HEADS) {
        await client.query(
          `INSERT INTO ${schema}.conversations (conv, head_seq, head_hash, created_at) VALUES ($1, $2, $3, 1)`,
          [conv, seq, hash],
        );
        for (const m of members)
          await client.query(`INSERT INTO ${schema}.members (conv, member) VALUES ($1, $2)`, [conv, m]);
      }
      for (const [conv, seq, hash, author, postId] of RECORDS) {
        await client.query(
          `INSERT INTO ${schema}.records (conv, seq, hash, author, post_id, bytes, signatures, certificate, committed_at) VALUES ($1, $2, $3, $4, $5, '\\x01', '\\x02', '\\x03', 1)`,
          [conv, seq, hash, author, postId],
        );
      }
      const store = await open();
      try {
        await expectHeads(store);
      } finally {
        await store.close();
      }
      const columns = await client.query(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'conversations' ORDER BY column_name`,
        [schema],
      );
      expect(columns.rows.map((r: { column_name: string }) => r.column_name)).toEqual(["conv", "created_at"]);
    } finally {
      await client.end();
    }
  });
});

/** Conversations as a router before 0006 kept them: each head as its row said. */
const HEADS: readonly [string, number, string | null, readonly string[]][] = [
  ["direct:a,b", 2, "rec_three", ["a", "b"]],
  ["direct:a,c", 1, "rec_two", ["a", "c"]],
  ["group:g", 0, null, ["a", "b", "c"]],
];
const RECORDS: readonly [string, number, string, string, string][] = [
  ["direct:a,b", 1, "rec_one", "a", "pst_one"],
  ["direct:a,c", 1, "rec_two", "a", "pst_two"],
  ["direct:a,b", 2, "rec_three", "b", "pst_three"],
];

/**
 * Records lose the unique index on `hash`. Nothing reads records by hash, and the index cost every
 * certification one more B-tree insert at a random leaf (one more page in each commit's WAL and
 * its fsync). A record stays unique by its position (conv, seq) and by its author's PostId
 * (records_by_author_post), the keys every read and the idempotent retry use; two positions cannot
 * hold the same bytes, since each record names the head before it.
 *
 * PostgreSQL drops the constraint. SQLite cannot drop a column's UNIQUE, so the table is rebuilt;
 * on both the migrator's transaction holds the migration and its record (on SQLite through
 * TransactionalSqliteDialect), and a rerun finds no index on hash and does nothing.
 */
import { sql, type Kysely } from "kysely";

const COLUMNS = "conv, seq, hash, author, post_id, bytes, signatures, certificate, committed_at";

/** Whether the records table still has a unique index on hash alone. */
async function hashIsIndexed(db: Kysely<any>): Promise<boolean> {
  const indexes = await sql<{ name: string }>`SELECT name FROM pragma_index_list('records') WHERE "unique" = 1`.execute(
    db,
  );
  for (const { name } of indexes.rows) {
    const columns = await sql<{ name: string }>`SELECT name FROM pragma_index_info(${name})`.execute(db);
    if (columns.rows.length === 1 && columns.rows[0]!.name === "hash") return true;
  }
  return false;
}

export function dropRecordsHashIndex(dialect: "sqlite" | "postgres") {
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (dialect === "postgres") {
        await sql`ALTER TABLE records DROP CONSTRAINT IF EXISTS records_hash_key`.execute(db);
        return;
      }
      if (!(await hashIsIndexed(db))) return;
      await sql`CREATE TABLE records_rebuilt (
        conv text NOT NULL,
        seq integer NOT NULL,
        hash text NOT NULL,
        author text NOT NULL,
        post_id text NOT NULL,
        bytes blob NOT NULL,
        signatures blob NOT NULL,
        certificate blob NOT NULL,
        committed_at bigint NOT NULL,
        CONSTRAINT records_pk PRIMARY KEY (conv, seq)
      )`.execute(db);
      await sql
        .raw(`INSERT INTO records_rebuilt (${COLUMNS}) SELECT ${COLUMNS} FROM records ORDER BY rowid`)
        .execute(db);
      await sql`DROP TABLE records`.execute(db);
      await sql`ALTER TABLE records_rebuilt RENAME TO records`.execute(db);
      await sql`CREATE UNIQUE INDEX records_by_author_post ON records (author, post_id)`.execute(db);
    },
  };
}

/**
 * The inbox's ids lose AUTOINCREMENT's counter. The counter is a row of `sqlite_sequence`, updated
 * by every insert, so every commit that stored an inbox item wrote that table's page too: one WAL
 * frame more in each of the recipient's commits. Inbox rows are never deleted (an acknowledged item
 * stays as its tombstone), so the largest id is always the last handed out and the next rowid is
 * past every id a page's bounds or a cursor has seen. Tokens keep their unique index (they are 32
 * random bytes, looked up as given), and the pending set its partial index (0010).
 */
import { sql, type Kysely } from "kysely";

export const migration0013 = {
  async up(db: Kysely<any>): Promise<void> {
    await sql`CREATE TABLE inbox_rebuilt (
      id INTEGER PRIMARY KEY,
      token TEXT NOT NULL UNIQUE,
      kind TEXT NOT NULL,
      item TEXT NOT NULL,
      guidance TEXT,
      size INTEGER NOT NULL,
      conv TEXT,
      record_hash TEXT,
      state TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      settled_at INTEGER,
      settled_by TEXT
    )`.execute(db);
    await sql`INSERT INTO inbox_rebuilt
      SELECT id, token, kind, item, guidance, size, conv, record_hash, state, created_at, settled_at, settled_by
      FROM inbox ORDER BY id`.execute(db);
    await db.schema.dropTable("inbox").execute();
    await sql`ALTER TABLE inbox_rebuilt RENAME TO inbox`.execute(db);
    await sql`CREATE INDEX inbox_pending ON inbox (id) WHERE state = 'pending'`.execute(db);
  },
};

/**
 * An intent is inserted in its bind's commit and deleted in its certified record's, by its PostId.
 * Keyed by post_id in a rowid table, each of those commits touched two b-trees (the table and its
 * primary-key index) and wrote two pages; without a rowid the row lives in its key's b-tree. The
 * table holds only the unanswered intents (0006), so the copy is a few rows.
 */
import { sql, type Kysely } from "kysely";

export const migration0011 = {
  async up(db: Kysely<any>): Promise<void> {
    await sql`CREATE TABLE intents_keyed (
      post_id TEXT PRIMARY KEY,
      conv TEXT NOT NULL,
      content BLOB NOT NULL,
      state TEXT NOT NULL,
      record_hash TEXT,
      detail TEXT,
      created_at INTEGER NOT NULL,
      settled_at INTEGER
    ) WITHOUT ROWID`.execute(db);
    await sql`INSERT INTO intents_keyed SELECT post_id, conv, content, state, record_hash, detail, created_at, settled_at
      FROM intents`.execute(db);
    await db.schema.dropTable("intents").execute();
    await sql`ALTER TABLE intents_keyed RENAME TO intents`.execute(db);
  },
};

/**
 * A registration's stored occurrence is deleted and the next one inserted in every delivery's
 * retiring commit. Keyed by subscription_id in a rowid table, that touched two b-trees (the table
 * and its primary-key index) and wrote two pages; without a rowid the row lives in its key's b-tree.
 */
import { sql, type Kysely } from "kysely";

export const migration0009 = {
  async up(db: Kysely<any>): Promise<void> {
    await sql`CREATE TABLE webhook_occurrences_keyed (
      subscription_id TEXT PRIMARY KEY,
      token TEXT NOT NULL,
      event_id TEXT NOT NULL,
      body BLOB NOT NULL,
      created_at INTEGER NOT NULL
    ) WITHOUT ROWID`.execute(db);
    await sql`INSERT INTO webhook_occurrences_keyed SELECT subscription_id, token, event_id, body, created_at
      FROM webhook_occurrences`.execute(db);
    await db.schema.dropTable("webhook_occurrences").execute();
    await sql`ALTER TABLE webhook_occurrences_keyed RENAME TO webhook_occurrences`.execute(db);
  },
};

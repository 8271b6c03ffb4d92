/**
 * A record's hash is a SHA-256, so a unique index on it put every stored record on a random leaf:
 * a page in every commit that stores one, at the sender (its own certified posts) and at the
 * recipient, a third to a fifth of their WAL frames a post. The daemon looks records up by hash
 * only for the collectives (requests, answers, closes) and for records whose admission is still
 * open (queued for the firewall, held), so the index now holds those alone (`hash_indexed`); any
 * other record is found by a scan of its conversation, newest first (history.store.ts). The copy
 * keeps every stored record indexed, as before. The position stays unique, and ids stay without
 * AUTOINCREMENT's counter (another row written each commit): records are never deleted, so the
 * next rowid is always past every id handed out.
 */
import { sql, type Kysely } from "kysely";

export const migration0012 = {
  async up(db: Kysely<any>): Promise<void> {
    await sql`CREATE TABLE records_rebuilt (
      id INTEGER PRIMARY KEY,
      conv TEXT NOT NULL,
      seq INTEGER NOT NULL,
      hash TEXT NOT NULL,
      kind TEXT NOT NULL,
      author TEXT NOT NULL,
      post_id TEXT NOT NULL,
      at INTEGER NOT NULL,
      bytes BLOB NOT NULL,
      signatures BLOB NOT NULL,
      certificate BLOB NOT NULL,
      disposition TEXT NOT NULL,
      stored_at INTEGER NOT NULL,
      hash_indexed INTEGER NOT NULL,
      CONSTRAINT records_position UNIQUE (conv, seq)
    )`.execute(db);
    await sql`INSERT INTO records_rebuilt
      SELECT id, conv, seq, hash, kind, author, post_id, at, bytes, signatures, certificate, disposition, stored_at, 1
      FROM records`.execute(db);
    await db.schema.dropTable("records").execute();
    await sql`ALTER TABLE records_rebuilt RENAME TO records`.execute(db);
    await sql`CREATE INDEX records_by_hash ON records (hash) WHERE hash_indexed = 1`.execute(db);
  },
};

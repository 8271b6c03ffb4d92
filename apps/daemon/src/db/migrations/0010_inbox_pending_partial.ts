/**
 * The pending set is found through an index of pending ids only. The index on (state, id) held every
 * row, so settling an item moved its entry from the pending run to the acknowledged one: a delete
 * and an insert in two places of the b-tree, two pages each commit writes. A partial index drops
 * the entry and adds none. Every read of the pending set names `state = 'pending'` as a literal,
 * which SQLite needs to use a partial index (inbox.store.ts).
 */
import { sql, type Kysely } from "kysely";

export const migration0010 = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex("inbox_pending").execute();
    await sql`CREATE INDEX inbox_pending ON inbox (id) WHERE state = 'pending'`.execute(db);
  },
};

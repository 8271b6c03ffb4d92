/**
 * The intents table holds only unanswered intents since 0006, every one of them "bound", so the
 * index on (state, created_at) that found the open ones among the settled is one more page each
 * commit writes and nothing needs: the few rows left are read whole and sorted.
 */
import type { Kysely } from "kysely";

export const migration0007 = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex("intents_open").ifExists().execute();
  },
};

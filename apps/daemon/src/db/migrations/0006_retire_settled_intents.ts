/**
 * Settled intents are deleted when they settle (posts/intents.store.ts); this deletes the ones
 * databases kept from before, each a second copy of a post its certified record already holds.
 */
import { sql, type Kysely } from "kysely";

export const migration0006 = {
  async up(db: Kysely<any>): Promise<void> {
    await sql`DELETE FROM intents WHERE state <> 'bound'`.execute(db);
  },
};

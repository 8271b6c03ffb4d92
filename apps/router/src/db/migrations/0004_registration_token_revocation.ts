/**
 * Registration tokens can be revoked (`router token revoke`): when, if ever. A revoked token
 * registers nothing; its row stays, as a used one does, so `router token list` still shows it.
 */
import type { Kysely } from "kysely";

export const migration0004 = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable("registration_tokens").addColumn("revoked_at", "bigint").execute();
  },
};

/**
 * Registration tokens for `--admission token`: a digest of each token (never the token), the name
 * it may register if it names one, when it expires, and when and by whom it was used.
 */
import type { Kysely } from "kysely";

export const migration0002 = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable("registration_tokens")
      .addColumn("digest", "text", (c) => c.primaryKey())
      .addColumn("name", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("used_at", "bigint")
      .addColumn("used_by", "text")
      .execute();
  },
};

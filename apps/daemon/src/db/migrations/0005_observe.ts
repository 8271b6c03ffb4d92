/**
 * What the owner's Overview reads over time that no table kept: one row per webhook delivery
 * attempt (its outcome, failure category, whether it was a retry, and how long it took), so the
 * per-subscription delivery health survives restarts. Never the URL, a status line or a body.
 */
import type { Kysely } from "kysely";

export const migration0005 = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable("webhook_attempts")
      .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
      .addColumn("subscription_id", "text", (c) => c.notNull())
      /** "delivered", "failed" or "suspended" (the failure that suspended the registration). */
      .addColumn("outcome", "text", (c) => c.notNull())
      .addColumn("category", "text")
      .addColumn("retry", "integer", (c) => c.notNull())
      .addColumn("latency_ms", "integer", (c) => c.notNull())
      .addColumn("at", "integer", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("webhook_attempts_by_at").on("webhook_attempts").columns(["at"]).execute();
  },
};

/**
 * Webhook consumer state that must outlive a restart (seed 000 "Webhook consumer"): each
 * registration with its sealed secret, lease and delivery diagnostics, and the one callback
 * occurrence in flight per registration, whose exact body bytes every retry sends again.
 */
import type { Kysely } from "kysely";

export const migration0003 = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable("webhook_subscriptions")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("principal", "text", (c) => c.notNull())
      .addColumn("url", "text", (c) => c.notNull())
      .addColumn("event_name", "text", (c) => c.notNull())
      .addColumn("arguments", "text", (c) => c.notNull())
      .addColumn("secret", "text", (c) => c.notNull())
      .addColumn("secret_fingerprint", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("terminal_status", "integer")
      .addColumn("lease_expires_at", "integer", (c) => c.notNull())
      .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("failing_since", "integer")
      .addColumn("last_error", "text")
      .addColumn("next_attempt_at", "integer")
      .addColumn("last_delivery_at", "integer")
      .addColumn("delivered", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "integer", (c) => c.notNull())
      .addColumn("updated_at", "integer", (c) => c.notNull())
      .addColumn("revoked_at", "integer")
      .addColumn("revoked_by", "text")
      .execute();
    await db.schema
      .createTable("webhook_occurrences")
      .addColumn("subscription_id", "text", (c) => c.primaryKey())
      .addColumn("token", "text", (c) => c.notNull())
      .addColumn("event_id", "text", (c) => c.notNull())
      .addColumn("body", "blob", (c) => c.notNull())
      .addColumn("created_at", "integer", (c) => c.notNull())
      .execute();
  },
};

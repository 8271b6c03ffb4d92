/**
 * The message firewall's durable state (SPEC §10): policy revisions with time and author, the
 * private inbound queue of classified items awaiting a check, and the audit of every check. Holds
 * become one table for trust and firewall holds, with the check's guidance and audit, released or
 * discarded by the owner; a record may be held more than once (held by trust, released, then held
 * by the firewall), so the table is rebuilt without the unique record hash.
 */
import { sql, type Kysely } from "kysely";

export const migration0004 = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable("firewall_policies")
      .addColumn("revision", "integer", (c) => c.primaryKey())
      .addColumn("policy", "text", (c) => c.notNull())
      .addColumn("author", "text", (c) => c.notNull())
      .addColumn("created_at", "integer", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("firewall_queue")
      .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
      .addColumn("conv", "text", (c) => c.notNull())
      .addColumn("record_hash", "text", (c) => c.notNull())
      .addColumn("sender", "text", (c) => c.notNull())
      /** "item", "answer" or "close" (a close's result is projected when its turn comes). */
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("payload", "text", (c) => c.notNull())
      .addColumn("created_at", "integer", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("firewall_queue_by_conv").on("firewall_queue").columns(["conv", "id"]).execute();
    await db.schema
      .createTable("firewall_checks")
      .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
      .addColumn("check_id", "text", (c) => c.notNull().unique())
      .addColumn("direction", "text", (c) => c.notNull())
      .addColumn("conv", "text", (c) => c.notNull())
      .addColumn("record_hash", "text")
      .addColumn("post_id", "text")
      .addColumn("subjects", "text", (c) => c.notNull())
      .addColumn("policy_revision", "integer", (c) => c.notNull())
      .addColumn("mode", "text", (c) => c.notNull())
      /** What the policy decided ("allow", "hold", "refuse") and what happened ("allowed", "held", "refused"). */
      .addColumn("decision", "text", (c) => c.notNull())
      .addColumn("outcome", "text", (c) => c.notNull())
      .addColumn("middlewares", "text", (c) => c.notNull())
      .addColumn("guidance", "text")
      .addColumn("stale", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("latency_us", "integer", (c) => c.notNull())
      .addColumn("created_at", "integer", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("firewall_checks_by_record").on("firewall_checks").columns(["record_hash"]).execute();

    await db.schema
      .createTable("holds_v2")
      .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
      .addColumn("record_hash", "text", (c) => c.notNull())
      .addColumn("sender", "text", (c) => c.notNull())
      .addColumn("conv", "text", (c) => c.notNull())
      .addColumn("item", "text", (c) => c.notNull())
      .addColumn("reason", "text", (c) => c.notNull())
      /** "trust" or "firewall". */
      .addColumn("source", "text", (c) => c.notNull())
      .addColumn("check_id", "text")
      .addColumn("guidance", "text")
      .addColumn("created_at", "integer", (c) => c.notNull())
      .addColumn("released_at", "integer")
      .addColumn("released_token", "text")
      .addColumn("discarded_at", "integer")
      .execute();
    await sql`INSERT INTO holds_v2 (id, record_hash, sender, conv, item, reason, source, created_at, released_at, released_token)
      SELECT id, record_hash, sender, conv, item, reason, 'trust', created_at, released_at, released_token FROM holds`.execute(
      db,
    );
    await db.schema.dropTable("holds").execute();
    await sql`ALTER TABLE holds_v2 RENAME TO holds`.execute(db);
    await db.schema.createIndex("holds_open").on("holds").columns(["released_at", "discarded_at", "id"]).execute();
    await db.schema.createIndex("holds_by_sender").on("holds").columns(["sender", "released_at", "id"]).execute();
  },
};

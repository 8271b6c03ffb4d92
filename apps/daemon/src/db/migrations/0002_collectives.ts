/**
 * Collective bookkeeping that must outlive a restart: the requests this daemon holds (to refuse a
 * reused id and to apply an all_gather close from certified history), and the operations it
 * started (to report those a restart interrupted). Answering contexts stay in memory.
 */
import type { Kysely } from "kysely";

export const migration0002 = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable("collective_requests")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("record_hash", "text", (c) => c.notNull())
      .addColumn("conv", "text", (c) => c.notNull())
      .addColumn("op", "text", (c) => c.notNull())
      .addColumn("requester", "text", (c) => c.notNull())
      .addColumn("deadline_at", "integer", (c) => c.notNull())
      .addColumn("received_at", "integer", (c) => c.notNull())
      .addColumn("result_token", "text")
      .execute();
    await db.schema
      .createTable("collective_operations")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("op", "text", (c) => c.notNull())
      .addColumn("address", "text", (c) => c.notNull())
      .addColumn("question", "text", (c) => c.notNull())
      .addColumn("deadline_at", "integer", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("created_at", "integer", (c) => c.notNull())
      .addColumn("settled_at", "integer")
      .execute();
    await db.schema.createIndex("collective_operations_open").on("collective_operations").columns(["state"]).execute();
  },
};

/**
 * The daemon's first schema: pinned keys, conversations and their certified history, bound
 * send intents, the durable inbox with its tombstones, holds, and the trust list.
 */
import { sql, type Kysely } from "kysely";

export const migration0001 = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable("pinned_keys")
      .addColumn("name", "text", (c) => c.primaryKey())
      .addColumn("public_key", "blob", (c) => c.notNull())
      .addColumn("pinned_at", "integer", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("router_identity")
      .addColumn("id", "integer", (c) => c.primaryKey())
      .addColumn("public_key", "blob", (c) => c.notNull())
      .addColumn("pinned_at", "integer", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("conversations")
      .addColumn("conv", "text", (c) => c.primaryKey())
      .addColumn("members", "text", (c) => c.notNull())
      .addColumn("contiguous_seq", "integer", (c) => c.notNull())
      .addColumn("created_at", "integer", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("records")
      .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
      .addColumn("conv", "text", (c) => c.notNull())
      .addColumn("seq", "integer", (c) => c.notNull())
      .addColumn("hash", "text", (c) => c.notNull().unique())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("author", "text", (c) => c.notNull())
      .addColumn("post_id", "text", (c) => c.notNull())
      .addColumn("at", "integer", (c) => c.notNull())
      .addColumn("bytes", "blob", (c) => c.notNull())
      .addColumn("signatures", "blob", (c) => c.notNull())
      .addColumn("certificate", "blob", (c) => c.notNull())
      .addColumn("disposition", "text", (c) => c.notNull())
      .addColumn("stored_at", "integer", (c) => c.notNull())
      .addUniqueConstraint("records_position", ["conv", "seq"])
      .execute();
    await db.schema
      .createTable("intents")
      .addColumn("post_id", "text", (c) => c.primaryKey())
      .addColumn("conv", "text", (c) => c.notNull())
      .addColumn("content", "blob", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("record_hash", "text")
      .addColumn("detail", "text")
      .addColumn("created_at", "integer", (c) => c.notNull())
      .addColumn("settled_at", "integer")
      .execute();
    await db.schema.createIndex("intents_open").on("intents").columns(["state", "created_at"]).execute();
    await db.schema
      .createTable("inbox")
      .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
      .addColumn("token", "text", (c) => c.notNull().unique())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("item", "text", (c) => c.notNull())
      .addColumn("guidance", "text")
      .addColumn("size", "integer", (c) => c.notNull())
      .addColumn("conv", "text")
      .addColumn("record_hash", "text")
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("created_at", "integer", (c) => c.notNull())
      .addColumn("settled_at", "integer")
      .addColumn("settled_by", "text")
      .execute();
    await db.schema.createIndex("inbox_pending").on("inbox").columns(["state", "id"]).execute();
    await db.schema
      .createTable("holds")
      .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
      .addColumn("record_hash", "text", (c) => c.notNull().unique())
      .addColumn("sender", "text", (c) => c.notNull())
      .addColumn("conv", "text", (c) => c.notNull())
      .addColumn("item", "text", (c) => c.notNull())
      .addColumn("reason", "text", (c) => c.notNull())
      .addColumn("created_at", "integer", (c) => c.notNull())
      .addColumn("released_at", "integer")
      .addColumn("released_token", "text")
      .execute();
    await db.schema.createIndex("holds_by_sender").on("holds").columns(["sender", "released_at", "id"]).execute();
    await db.schema
      .createTable("trusted_agents")
      .addColumn("name", "text", (c) => c.primaryKey())
      .addColumn("added_at", "integer", (c) => c.notNull())
      .execute();
    await sql`PRAGMA user_version = 1`.execute(db);
  },
};

/** The router's first schema: agents, conversations and their members, records, the router key. */
import type { Kysely } from "kysely";

export function createRouterSchema(binary: "blob" | "bytea") {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable("agents")
        .addColumn("name", "text", (c) => c.primaryKey())
        .addColumn("public_key", binary, (c) => c.notNull())
        .addColumn("registered_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("conversations")
        .addColumn("conv", "text", (c) => c.primaryKey())
        .addColumn("head_seq", "integer", (c) => c.notNull())
        .addColumn("head_hash", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("members")
        .addColumn("conv", "text", (c) => c.notNull())
        .addColumn("member", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("members_pk", ["conv", "member"])
        .execute();
      await db.schema.createIndex("members_by_member").on("members").columns(["member", "conv"]).execute();
      await db.schema
        .createTable("records")
        .addColumn("conv", "text", (c) => c.notNull())
        .addColumn("seq", "integer", (c) => c.notNull())
        .addColumn("hash", "text", (c) => c.notNull().unique())
        .addColumn("author", "text", (c) => c.notNull())
        .addColumn("post_id", "text", (c) => c.notNull())
        .addColumn("bytes", binary, (c) => c.notNull())
        .addColumn("signatures", binary, (c) => c.notNull())
        .addColumn("certificate", binary, (c) => c.notNull())
        .addColumn("committed_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("records_pk", ["conv", "seq"])
        .execute();
      await db.schema
        .createIndex("records_by_author_post")
        .on("records")
        .columns(["author", "post_id"])
        .unique()
        .execute();
      await db.schema
        .createTable("router_keys")
        .addColumn("id", "integer", (c) => c.primaryKey())
        .addColumn("seed", binary, (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
    },
  };
}

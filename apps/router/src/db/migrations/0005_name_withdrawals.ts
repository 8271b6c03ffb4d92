/**
 * Withdrawn names (`router agent withdraw`): which key held each name until when. The agent's row
 * goes in the same transaction; this log stays, ordered by `id`, so that every router sharing the
 * database learns of a withdrawal by reading the rows past the last it saw, and so that no key
 * registers a withdrawn name again.
 */
import type { Kysely } from "kysely";
import type { Dialect } from "../database.js";

export function nameWithdrawals(dialect: Dialect) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable("name_withdrawals")
        .addColumn("id", dialect === "postgres" ? "bigserial" : "integer", (c) =>
          dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("public_key", dialect === "postgres" ? "bytea" : "blob", (c) => c.notNull())
        .addColumn("registered_at", "bigint", (c) => c.notNull())
        .addColumn("withdrawn_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("name_withdrawals_by_name").on("name_withdrawals").column("name").execute();
    },
  };
}

/**
 * A conversation's head (its last sequence number and that record's hash) is no longer kept in its
 * `conversations` row: it is the record with the highest seq, found through the records' primary
 * key (conv, seq). Moving the head was one more statement for every certified record and one more
 * page in every commit, for a copy of what the records already hold. The row stays, as the
 * conversation's existence, its members' anchor and, on PostgreSQL, the lock that serialises appends
 * to it. A rerun finds the columns gone and does nothing.
 */
import { sql, type Kysely } from "kysely";
import type { Dialect } from "../database.js";

export function headsFromRecords(dialect: Dialect) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (dialect === "postgres") {
        await sql`ALTER TABLE conversations DROP COLUMN IF EXISTS head_seq, DROP COLUMN IF EXISTS head_hash`.execute(
          db,
        );
        return;
      }
      const columns = await sql<{ name: string }>`SELECT name FROM pragma_table_info('conversations')`.execute(db);
      for (const column of ["head_seq", "head_hash"]) {
        if (columns.rows.some((c) => c.name === column)) {
          await sql.raw(`ALTER TABLE conversations DROP COLUMN ${column}`).execute(db);
        }
      }
    },
  };
}

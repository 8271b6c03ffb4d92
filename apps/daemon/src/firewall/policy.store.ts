/** SQL for firewall policy revisions: each set is a new revision with its time and author. */
import type { DbOrTrx } from "../db/database.js";

export interface PolicyRevisionRow {
  readonly revision: number;
  readonly policy: string;
  readonly author: string;
  readonly createdAt: number;
}

export async function latestRevision(db: DbOrTrx): Promise<PolicyRevisionRow | undefined> {
  const row = await db
    .selectFrom("firewall_policies")
    .selectAll()
    .orderBy("revision", "desc")
    .limit(1)
    .executeTakeFirst();
  return row === undefined
    ? undefined
    : { revision: row.revision, policy: row.policy, author: row.author, createdAt: row.created_at };
}

export async function insertRevision(db: DbOrTrx, row: Omit<PolicyRevisionRow, "revision">): Promise<number> {
  const latest = await latestRevision(db);
  const revision = (latest?.revision ?? 0) + 1;
  await db
    .insertInto("firewall_policies")
    .values({ revision, policy: row.policy, author: row.author, created_at: row.createdAt })
    .execute();
  return revision;
}

export async function listRevisions(db: DbOrTrx, limit: number): Promise<PolicyRevisionRow[]> {
  const rows = await db.selectFrom("firewall_policies").selectAll().orderBy("revision", "desc").limit(limit).execute();
  return rows.map((r) => ({ revision: r.revision, policy: r.policy, author: r.author, createdAt: r.created_at }));
}

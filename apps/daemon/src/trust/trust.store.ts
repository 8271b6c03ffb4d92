/** SQL for the trust list. */
import { prepared } from "@social-harness/sqlite";
import type { Kysely } from "kysely";
import type { DaemonDatabase, DbOrTrx } from "../db/database.js";

const selectTrusted = prepared((db: Kysely<DaemonDatabase>, name: string) =>
  db.selectFrom("trusted_agents").select("name").where("name", "=", name),
);

export async function isTrustedAgent(db: DbOrTrx, name: string): Promise<boolean> {
  return (await selectTrusted(db, name)).rows.length > 0;
}

export async function listTrustedAgents(db: DbOrTrx): Promise<{ name: string; addedAt: number }[]> {
  const rows = await db.selectFrom("trusted_agents").selectAll().orderBy("name").execute();
  return rows.map((r) => ({ name: r.name, addedAt: r.added_at }));
}

export async function addTrustedAgent(db: DbOrTrx, name: string, now: number): Promise<void> {
  await db
    .insertInto("trusted_agents")
    .values({ name, added_at: now })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
}

export async function removeTrustedAgent(db: DbOrTrx, name: string): Promise<boolean> {
  const result = await db.deleteFrom("trusted_agents").where("name", "=", name).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

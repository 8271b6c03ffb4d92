/** SQL for the trust list and the items held for the owner. */
import { prepared } from "@social-harness/sqlite";
import type { Kysely } from "kysely";
import type { DaemonDatabase, DbOrTrx } from "../db/database.js";

const selectTrusted = prepared((db: Kysely<DaemonDatabase>, name: string) =>
  db.selectFrom("trusted_agents").select("name").where("name", "=", name),
);

export interface HoldRow {
  readonly id: number;
  readonly recordHash: string;
  readonly sender: string;
  readonly conv: string;
  readonly item: string;
  readonly reason: string;
  readonly createdAt: number;
}

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

export async function insertHold(
  db: DbOrTrx,
  hold: { recordHash: string; sender: string; conv: string; item: string; reason: string; createdAt: number },
): Promise<void> {
  await db
    .insertInto("holds")
    .values({
      record_hash: hold.recordHash,
      sender: hold.sender,
      conv: hold.conv,
      item: hold.item,
      reason: hold.reason,
      created_at: hold.createdAt,
    })
    .execute();
}

export async function openHolds(db: DbOrTrx, sender?: string): Promise<HoldRow[]> {
  let query = db.selectFrom("holds").selectAll().where("released_at", "is", null);
  if (sender !== undefined) query = query.where("sender", "=", sender);
  const rows = await query.orderBy("id").execute();
  return rows.map((r) => ({
    id: r.id,
    recordHash: r.record_hash,
    sender: r.sender,
    conv: r.conv,
    item: r.item,
    reason: r.reason,
    createdAt: r.created_at,
  }));
}

export async function releaseHold(db: DbOrTrx, id: number, token: string, now: number): Promise<void> {
  await db.updateTable("holds").set({ released_at: now, released_token: token }).where("id", "=", id).execute();
}

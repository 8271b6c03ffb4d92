/** SQL for items held for the owner: by trust or by the firewall, until released or discarded. */
import {
  CheckedGuidanceSchema,
  InboundItemSchema,
  type CheckedGuidance,
  type InboundItem,
} from "@social-harness/protocol";
import type { Selectable } from "kysely";
import type { DbOrTrx, HoldsTable } from "../db/database.js";

export type HoldSource = "trust" | "firewall";

export interface HoldRow {
  readonly id: number;
  readonly recordHash: string;
  readonly sender: string;
  readonly conv: string;
  readonly item: InboundItem;
  readonly reason: string;
  readonly source: HoldSource;
  readonly checkId: string | null;
  readonly guidance: CheckedGuidance | null;
  readonly createdAt: number;
  readonly releasedAt: number | null;
  readonly discardedAt: number | null;
}

/** The one mapper of a holds row; its JSON columns are checked by their schemas. */
function toHoldRow(row: Selectable<HoldsTable>): HoldRow {
  return {
    id: row.id,
    recordHash: row.record_hash,
    sender: row.sender,
    conv: row.conv,
    item: InboundItemSchema.parse(JSON.parse(row.item)),
    reason: row.reason,
    source: row.source as HoldSource,
    checkId: row.check_id,
    guidance: row.guidance === null ? null : CheckedGuidanceSchema.parse(JSON.parse(row.guidance)),
    createdAt: row.created_at,
    releasedAt: row.released_at,
    discardedAt: row.discarded_at,
  };
}

export async function insertHold(
  db: DbOrTrx,
  hold: Omit<HoldRow, "id" | "releasedAt" | "discardedAt">,
): Promise<number> {
  const result = await db
    .insertInto("holds")
    .values({
      record_hash: hold.recordHash,
      sender: hold.sender,
      conv: hold.conv,
      item: JSON.stringify(hold.item),
      reason: hold.reason,
      source: hold.source,
      check_id: hold.checkId,
      guidance: hold.guidance === null ? null : JSON.stringify(hold.guidance),
      created_at: hold.createdAt,
    })
    .executeTakeFirst();
  return Number(result.insertId);
}

/** Open holds (neither released nor discarded), oldest first; optionally one sender's of one source. */
export async function openHolds(
  db: DbOrTrx,
  filter: { sender?: string; source?: HoldSource } = {},
): Promise<HoldRow[]> {
  let query = db.selectFrom("holds").selectAll().where("released_at", "is", null).where("discarded_at", "is", null);
  if (filter.sender !== undefined) query = query.where("sender", "=", filter.sender);
  if (filter.source !== undefined) query = query.where("source", "=", filter.source);
  return (await query.orderBy("id").execute()).map(toHoldRow);
}

export async function findHold(db: DbOrTrx, id: number): Promise<HoldRow | undefined> {
  const row = await db.selectFrom("holds").selectAll().where("id", "=", id).executeTakeFirst();
  return row === undefined ? undefined : toHoldRow(row);
}

/**
 * Marks an open hold released (with the token its item got, or null when it went back through the
 * firewall's queue) or discarded; false when it was not open.
 */
export async function closeHold(
  db: DbOrTrx,
  id: number,
  close: { released: string | null } | { discarded: true },
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable("holds")
    .set("released" in close ? { released_at: now, released_token: close.released } : { discarded_at: now })
    .where("id", "=", id)
    .where("released_at", "is", null)
    .where("discarded_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** SQL for the firewall's private inbound queue: classified subjects awaiting their check. */
import type { DbOrTrx } from "../db/database.js";

export type QueueKind = "item" | "answer" | "close";

export interface QueueRow {
  readonly id: number;
  readonly conv: string;
  readonly recordHash: string;
  readonly sender: string;
  readonly kind: QueueKind;
  readonly payload: string;
  readonly createdAt: number;
}

export async function enqueue(db: DbOrTrx, row: Omit<QueueRow, "id">): Promise<void> {
  await db
    .insertInto("firewall_queue")
    .values({
      conv: row.conv,
      record_hash: row.recordHash,
      sender: row.sender,
      kind: row.kind,
      payload: row.payload,
      created_at: row.createdAt,
    })
    .execute();
}

/**
 * The admission frontier: the oldest queued row of each conversation, oldest first, leaving out
 * the conversations whose check is in flight.
 */
export async function frontier(db: DbOrTrx, busy: readonly string[], limit: number): Promise<QueueRow[]> {
  let query = db
    .selectFrom("firewall_queue")
    .selectAll()
    .where("id", "in", (eb) =>
      eb
        .selectFrom("firewall_queue")
        .select((f) => f.fn.min("id").as("id"))
        .groupBy("conv"),
    );
  if (busy.length > 0) query = query.where("conv", "not in", [...busy]);
  const rows = await query.orderBy("id").limit(limit).execute();
  return rows.map((r) => ({
    id: r.id,
    conv: r.conv,
    recordHash: r.record_hash,
    sender: r.sender,
    kind: r.kind as QueueKind,
    payload: r.payload,
    createdAt: r.created_at,
  }));
}

/** Removes a settled row; false when it was already gone. */
export async function dequeue(db: DbOrTrx, id: number): Promise<boolean> {
  const result = await db.deleteFrom("firewall_queue").where("id", "=", id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function queuedCount(db: DbOrTrx): Promise<number> {
  const row = await db
    .selectFrom("firewall_queue")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

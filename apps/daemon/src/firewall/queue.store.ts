/** SQL for the firewall's private inbound queue: classified subjects awaiting their check. */
import { AnswerPartSchema, ClosePartSchema, InboundItemSchema } from "@social-harness/protocol";
import * as z from "zod";
import type { DbOrTrx } from "../db/database.js";
import type { QueuePayload } from "../ingress/admission.js";

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

const QueuePayloadSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("item"), item: InboundItemSchema }),
  z.object({
    kind: z.literal("answer"),
    answer: z.object({
      id: z.string(),
      member: z.string(),
      conv: z.string(),
      hash: z.string(),
      response: AnswerPartSchema.shape.response,
    }),
  }),
  z.object({
    kind: z.literal("close"),
    close: z.object({
      record: z.object({ conv: z.string(), author: z.string() }),
      hash: z.string(),
      part: ClosePartSchema,
    }),
  }),
]);

/** The one mapper of a queued row's payload, checked by its schema (a row that fails it stays queued). */
export function payloadOf(row: Pick<QueueRow, "payload">): QueuePayload {
  return QueuePayloadSchema.parse(JSON.parse(row.payload));
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

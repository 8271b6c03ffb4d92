/** SQL for the durable inbox: pending items, acknowledgment tombstones and retired rows. */
import type { DbOrTrx } from "../db/database.js";

export interface InboxRow {
  readonly id: number;
  readonly token: string;
  readonly kind: string;
  readonly item: string;
  readonly guidance: string | null;
  readonly size: number;
  readonly conv: string | null;
  readonly recordHash: string | null;
  readonly state: "pending" | "acknowledged" | "retired";
  readonly createdAt: number;
  readonly settledAt: number | null;
}

type Row = {
  id: number;
  token: string;
  kind: string;
  item: string;
  guidance: string | null;
  size: number;
  conv: string | null;
  record_hash: string | null;
  state: string;
  created_at: number;
  settled_at: number | null;
};

function toInboxRow(row: Row): InboxRow {
  return {
    id: row.id,
    token: row.token,
    kind: row.kind,
    item: row.item,
    guidance: row.guidance,
    size: row.size,
    conv: row.conv,
    recordHash: row.record_hash,
    state: row.state as InboxRow["state"],
    createdAt: row.created_at,
    settledAt: row.settled_at,
  };
}

const COLUMNS = [
  "id",
  "token",
  "kind",
  "item",
  "guidance",
  "size",
  "conv",
  "record_hash",
  "state",
  "created_at",
  "settled_at",
] as const;

export async function insertInboxRow(
  db: DbOrTrx,
  row: {
    token: string;
    kind: string;
    item: string;
    guidance: string | null;
    conv: string | null;
    recordHash: string | null;
    createdAt: number;
  },
): Promise<number> {
  const result = await db
    .insertInto("inbox")
    .values({
      token: row.token,
      kind: row.kind,
      item: row.item,
      guidance: row.guidance,
      size: Buffer.byteLength(row.item) + (row.guidance === null ? 0 : Buffer.byteLength(row.guidance)),
      conv: row.conv,
      record_hash: row.recordHash,
      state: "pending",
      created_at: row.createdAt,
    })
    .executeTakeFirstOrThrow();
  return Number(result.insertId);
}

export async function findInboxRow(db: DbOrTrx, token: string): Promise<InboxRow | undefined> {
  const row = await db.selectFrom("inbox").select(COLUMNS).where("token", "=", token).executeTakeFirst();
  return row === undefined ? undefined : toInboxRow(row);
}

/** Pending rows with after < id <= upper, in insertion order. */
export async function pendingRows(db: DbOrTrx, after: number, upper: number, limit: number): Promise<InboxRow[]> {
  const rows = await db
    .selectFrom("inbox")
    .select(COLUMNS)
    .where("state", "=", "pending")
    .where("id", ">", after)
    .where("id", "<=", upper)
    .orderBy("id")
    .limit(limit)
    .execute();
  return rows.map(toInboxRow);
}

export async function maxInboxId(db: DbOrTrx): Promise<number> {
  const row = await db
    .selectFrom("inbox")
    .select((eb) => eb.fn.max("id").as("max"))
    .executeTakeFirst();
  return Number(row?.max ?? 0);
}

export async function countPending(db: DbOrTrx): Promise<number> {
  const row = await db
    .selectFrom("inbox")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("state", "=", "pending")
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Settles a pending row; false when it was not pending. */
export async function settleInboxRow(
  db: DbOrTrx,
  token: string,
  state: "acknowledged" | "retired",
  by: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable("inbox")
    .set({ state, settled_at: now, settled_by: by })
    .where("token", "=", token)
    .where("state", "=", "pending")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Owner listing: pending rows newest first, paged by id. */
export async function listPendingRows(db: DbOrTrx, before: number | undefined, limit: number): Promise<InboxRow[]> {
  let query = db.selectFrom("inbox").select(COLUMNS).where("state", "=", "pending");
  if (before !== undefined) query = query.where("id", "<", before);
  const rows = await query.orderBy("id", "desc").limit(limit).execute();
  return rows.map(toInboxRow);
}

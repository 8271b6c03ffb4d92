/** SQL for conversations, their members and their records. Every function takes the db or trx. */
import type { Kysely, Transaction } from "kysely";
import type { Dialect, RouterDatabase } from "../db/database.js";

type Db = Kysely<RouterDatabase> | Transaction<RouterDatabase>;

export interface ConversationHead {
  readonly seq: number;
  readonly hash: string | null;
}

export interface StoredRecord {
  readonly conv: string;
  readonly seq: number;
  readonly hash: string;
  readonly bytes: Uint8Array;
  readonly signatures: Uint8Array;
  readonly certificate: Uint8Array;
}

/** Reads a conversation's head, locking its row on PostgreSQL so appends to it serialise. */
export async function lockHead(trx: Db, dialect: Dialect, conv: string): Promise<ConversationHead | undefined> {
  let query = trx.selectFrom("conversations").select(["head_seq", "head_hash"]).where("conv", "=", conv);
  if (dialect === "postgres") query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row === undefined ? undefined : { seq: row.head_seq, hash: row.head_hash };
}

/** Creates a conversation and its member rows; false if it already existed. */
export async function createConversation(
  trx: Db,
  conv: string,
  members: readonly string[],
  now: number,
): Promise<boolean> {
  const inserted = await trx
    .insertInto("conversations")
    .values({ conv, head_seq: 0, head_hash: null, created_at: now })
    .onConflict((oc) => oc.column("conv").doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
  await trx
    .insertInto("members")
    .values(members.map((member) => ({ conv, member })))
    .execute();
  return true;
}

export async function findRecordByPost(trx: Db, author: string, postId: string): Promise<StoredRecord | undefined> {
  return trx
    .selectFrom("records")
    .select(["conv", "seq", "hash", "bytes", "signatures", "certificate"])
    .where("author", "=", author)
    .where("post_id", "=", postId)
    .executeTakeFirst();
}

export async function appendRecord(
  trx: Db,
  row: StoredRecord & { author: string; postId: string; committedAt: number },
): Promise<void> {
  await trx
    .insertInto("records")
    .values({
      conv: row.conv,
      seq: row.seq,
      hash: row.hash,
      author: row.author,
      post_id: row.postId,
      bytes: Buffer.from(row.bytes),
      signatures: Buffer.from(row.signatures),
      certificate: Buffer.from(row.certificate),
      committed_at: row.committedAt,
    })
    .execute();
  await trx
    .updateTable("conversations")
    .set({ head_seq: row.seq, head_hash: row.hash })
    .where("conv", "=", row.conv)
    .execute();
}

export async function membersOf(db: Db, conv: string): Promise<string[]> {
  const rows = await db.selectFrom("members").select("member").where("conv", "=", conv).execute();
  return rows.map((r) => r.member);
}

/** Every conversation `member` belongs to, with its head. */
export async function headsForMember(db: Db, member: string): Promise<{ conv: string; seq: number }[]> {
  const rows = await db
    .selectFrom("members")
    .innerJoin("conversations", "conversations.conv", "members.conv")
    .select(["members.conv as conv", "conversations.head_seq as seq"])
    .where("members.member", "=", member)
    .execute();
  return rows;
}

export async function recordsAfter(db: Db, conv: string, afterSeq: number, limit: number): Promise<StoredRecord[]> {
  return db
    .selectFrom("records")
    .select(["conv", "seq", "hash", "bytes", "signatures", "certificate"])
    .where("conv", "=", conv)
    .where("seq", ">", afterSeq)
    .orderBy("seq")
    .limit(limit)
    .execute();
}

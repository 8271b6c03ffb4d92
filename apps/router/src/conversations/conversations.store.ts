/** SQL for conversations, their members and their records. Every function takes the db or trx. */
import type { Kysely, Transaction } from "kysely";
import type { Dialect, RouterDatabase } from "../db/database.js";
import { prepared } from "@social-harness/sqlite";

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

const selectHead = prepared((db: Kysely<RouterDatabase>, conv: string) =>
  db.selectFrom("conversations").select(["head_seq", "head_hash"]).where("conv", "=", conv),
);
const selectHeadForUpdate = prepared((db: Kysely<RouterDatabase>, conv: string) =>
  db.selectFrom("conversations").select(["head_seq", "head_hash"]).where("conv", "=", conv).forUpdate(),
);

/** Reads a conversation's head, locking its row on PostgreSQL so appends to it serialise. */
export async function lockHead(trx: Db, dialect: Dialect, conv: string): Promise<ConversationHead | undefined> {
  const { rows } = await (dialect === "postgres" ? selectHeadForUpdate : selectHead)(trx, conv);
  const row = rows[0];
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

const selectRecordByPost = prepared((db: Kysely<RouterDatabase>, author: string, postId: string) =>
  db
    .selectFrom("records")
    .select(["conv", "seq", "hash", "bytes", "signatures", "certificate"])
    .where("author", "=", author)
    .where("post_id", "=", postId),
);

export async function findRecordByPost(trx: Db, author: string, postId: string): Promise<StoredRecord | undefined> {
  return (await selectRecordByPost(trx, author, postId)).rows[0];
}

const insertRecord = prepared(
  (
    db: Kysely<RouterDatabase>,
    conv: string,
    seq: number,
    hash: string,
    author: string,
    postId: string,
    bytes: Uint8Array,
    signatures: Uint8Array,
    certificate: Uint8Array,
    committedAt: number,
  ) =>
    db.insertInto("records").values({
      conv,
      seq,
      hash,
      author,
      post_id: postId,
      bytes,
      signatures,
      certificate,
      committed_at: committedAt,
    }),
);
const updateHead = prepared((db: Kysely<RouterDatabase>, conv: string, seq: number, hash: string) =>
  db.updateTable("conversations").set({ head_seq: seq, head_hash: hash }).where("conv", "=", conv),
);

export async function appendRecord(
  trx: Db,
  row: StoredRecord & { author: string; postId: string; committedAt: number },
): Promise<void> {
  await insertRecord(
    trx,
    row.conv,
    row.seq,
    row.hash,
    row.author,
    row.postId,
    Buffer.from(row.bytes),
    Buffer.from(row.signatures),
    Buffer.from(row.certificate),
    row.committedAt,
  );
  await updateHead(trx, row.conv, row.seq, row.hash);
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

const selectRecordsAfter = prepared((db: Kysely<RouterDatabase>, conv: string, afterSeq: number, limit: number) =>
  db
    .selectFrom("records")
    .select(["conv", "seq", "hash", "bytes", "signatures", "certificate"])
    .where("conv", "=", conv)
    .where("seq", ">", afterSeq)
    .orderBy("seq")
    .limit(limit),
);

export async function recordsAfter(db: Db, conv: string, afterSeq: number, limit: number): Promise<StoredRecord[]> {
  return (await selectRecordsAfter(db, conv, afterSeq, limit)).rows;
}

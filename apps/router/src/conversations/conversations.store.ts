/** SQL for conversations, their members and their records. Every function takes the db or trx. */
import type { ExpressionBuilder, Kysely, Transaction } from "kysely";
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

/** Reads a conversation's head, locking its row on PostgreSQL so appends to it serialise. */
export async function lockHead(trx: Db, dialect: Dialect, conv: string): Promise<ConversationHead | undefined> {
  return (await lockHeads(trx, dialect, [conv])).get(conv);
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
    .values({ conv, created_at: now })
    .onConflict((oc) => oc.column("conv").doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
  await trx
    .insertInto("members")
    .values(members.map((member) => ({ conv, member })))
    .execute();
  return true;
}

/**
 * Reads the heads of several conversations. On PostgreSQL it first locks their rows, in
 * conversation order so that two routers locking overlapping sets never deadlock; the heads are
 * then read in a statement of their own, whose snapshot holds what the lock waited for.
 */
export async function lockHeads(
  trx: Db,
  dialect: Dialect,
  convs: readonly string[],
): Promise<Map<string, ConversationHead>> {
  if (convs.length === 0) return new Map();
  if (dialect === "postgres") {
    await trx
      .selectFrom("conversations")
      .select("conv")
      .where("conv", "in", [...convs])
      .orderBy("conv")
      .forUpdate()
      .execute();
  }
  const last = (eb: ExpressionBuilder<RouterDatabase, "conversations">) =>
    eb
      .selectFrom("records")
      .whereRef("records.conv", "=", "conversations.conv")
      .orderBy("records.seq", "desc")
      .limit(1);
  const rows = await trx
    .selectFrom("conversations")
    .select((eb) => [
      "conversations.conv as conv",
      last(eb).select("records.seq").as("seq"),
      last(eb).select("records.hash").as("hash"),
    ])
    .where("conversations.conv", "in", [...convs])
    .execute();
  return new Map(rows.map((r) => [r.conv, { seq: Number(r.seq ?? 0), hash: r.hash ?? null }]));
}

export interface NewRecord extends StoredRecord {
  readonly author: string;
  readonly postId: string;
  readonly committedAt: number;
}

/**
 * Inserts records in one statement. A record whose post (or hash) is already stored is skipped,
 * not an error; the answer holds the hashes that were inserted.
 */
export async function insertRecords(trx: Db, rows: readonly NewRecord[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const inserted = await trx
    .insertInto("records")
    .values(
      rows.map((row) => ({
        conv: row.conv,
        seq: row.seq,
        hash: row.hash,
        author: row.author,
        post_id: row.postId,
        bytes: Buffer.from(row.bytes),
        signatures: Buffer.from(row.signatures),
        certificate: Buffer.from(row.certificate),
        committed_at: row.committedAt,
      })),
    )
    .onConflict((oc) => oc.doNothing())
    .returning("hash")
    .execute();
  return new Set(inserted.map((r) => r.hash));
}

/** The stored records of any of these (author, post) pairs, in one statement. */
export async function findRecordsByPosts(
  trx: Db,
  posts: readonly { readonly author: string; readonly postId: string }[],
): Promise<Map<string, StoredRecord>> {
  if (posts.length === 0) return new Map();
  const rows = await trx
    .selectFrom("records")
    .select(["conv", "seq", "hash", "bytes", "signatures", "certificate", "author", "post_id"])
    .where("author", "in", [...new Set(posts.map((p) => p.author))])
    .where("post_id", "in", [...new Set(posts.map((p) => p.postId))])
    .execute();
  return new Map(
    rows.map(({ author, post_id, ...record }) => [postKey(author, post_id), record satisfies StoredRecord]),
  );
}

export function postKey(author: string, postId: string): string {
  return `${author}\0${postId}`;
}

export async function membersOf(db: Db, conv: string): Promise<string[]> {
  const rows = await db.selectFrom("members").select("member").where("conv", "=", conv).execute();
  return rows.map((r) => r.member);
}

/** Every conversation `member` belongs to, with its head's sequence number (0 before its first record). */
export async function headsForMember(db: Db, member: string): Promise<{ conv: string; seq: number }[]> {
  const rows = await db
    .selectFrom("members")
    .select((eb) => [
      "members.conv as conv",
      eb
        .selectFrom("records")
        .whereRef("records.conv", "=", "members.conv")
        .select((records) => records.fn.max("records.seq").as("seq"))
        .as("seq"),
    ])
    .where("members.member", "=", member)
    .execute();
  return rows.map((row) => ({ conv: row.conv, seq: Number(row.seq ?? 0) }));
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

/** SQL for conversations, certified records, pinned agent keys and the pinned router key. */
import type { DbOrTrx } from "../db/database.js";

export interface ConversationRow {
  readonly conv: string;
  readonly members: readonly string[];
  readonly contiguousSeq: number;
}

export interface StoredRecordRow {
  readonly id: number;
  readonly conv: string;
  readonly seq: number;
  readonly hash: string;
  readonly kind: string;
  readonly author: string;
  readonly postId: string;
  readonly at: number;
  readonly bytes: Uint8Array;
  readonly signatures: Uint8Array;
  readonly certificate: Uint8Array;
  readonly disposition: string;
  readonly storedAt: number;
}

export async function findConversation(db: DbOrTrx, conv: string): Promise<ConversationRow | undefined> {
  const row = await db.selectFrom("conversations").selectAll().where("conv", "=", conv).executeTakeFirst();
  if (row === undefined) return undefined;
  return { conv: row.conv, members: JSON.parse(row.members) as string[], contiguousSeq: row.contiguous_seq };
}

export async function ensureConversation(
  db: DbOrTrx,
  conv: string,
  members: readonly string[],
  now: number,
): Promise<void> {
  await db
    .insertInto("conversations")
    .values({ conv, members: JSON.stringify(members), contiguous_seq: 0, created_at: now })
    .onConflict((oc) => oc.column("conv").doNothing())
    .execute();
}

export async function findRecordAt(db: DbOrTrx, conv: string, seq: number): Promise<{ hash: string } | undefined> {
  return db.selectFrom("records").select("hash").where("conv", "=", conv).where("seq", "=", seq).executeTakeFirst();
}

export async function findRecordByHash(db: DbOrTrx, hash: string): Promise<StoredRecordRow | undefined> {
  const row = await db.selectFrom("records").selectAll().where("hash", "=", hash).executeTakeFirst();
  return row === undefined ? undefined : toStoredRecord(row);
}

export async function insertRecord(db: DbOrTrx, row: Omit<StoredRecordRow, "id">): Promise<number> {
  const result = await db
    .insertInto("records")
    .values({
      conv: row.conv,
      seq: row.seq,
      hash: row.hash,
      kind: row.kind,
      author: row.author,
      post_id: row.postId,
      at: row.at,
      bytes: Buffer.from(row.bytes),
      signatures: Buffer.from(row.signatures),
      certificate: Buffer.from(row.certificate),
      disposition: row.disposition,
      stored_at: row.storedAt,
    })
    .executeTakeFirstOrThrow();
  return Number(result.insertId);
}

/** Moves the contiguous cursor over every record already stored after it; returns the new seq. */
export async function advanceContiguous(db: DbOrTrx, conv: string): Promise<number> {
  const current = await db
    .selectFrom("conversations")
    .select("contiguous_seq")
    .where("conv", "=", conv)
    .executeTakeFirstOrThrow();
  let seq = current.contiguous_seq;
  const stored = await db
    .selectFrom("records")
    .select("seq")
    .where("conv", "=", conv)
    .where("seq", ">", seq)
    .orderBy("seq")
    .execute();
  for (const row of stored) {
    if (row.seq !== seq + 1) break;
    seq = row.seq;
  }
  if (seq !== current.contiguous_seq) {
    await db.updateTable("conversations").set({ contiguous_seq: seq }).where("conv", "=", conv).execute();
  }
  return seq;
}

/** The newest stored record of a conversation: what a proposal names as `prev`. */
export async function findHead(db: DbOrTrx, conv: string): Promise<{ seq: number; hash: string } | undefined> {
  return db
    .selectFrom("records")
    .select(["seq", "hash"])
    .where("conv", "=", conv)
    .orderBy("seq", "desc")
    .limit(1)
    .executeTakeFirst();
}

export async function cursors(db: DbOrTrx): Promise<Record<string, number>> {
  const rows = await db.selectFrom("conversations").select(["conv", "contiguous_seq"]).execute();
  return Object.fromEntries(rows.map((r) => [r.conv, r.contiguous_seq]));
}

export async function findPinnedKey(db: DbOrTrx, name: string): Promise<Uint8Array | undefined> {
  const row = await db.selectFrom("pinned_keys").select("public_key").where("name", "=", name).executeTakeFirst();
  return row === undefined ? undefined : new Uint8Array(row.public_key);
}

/** Pins `key` for `name` unless a key is already pinned; returns the pinned key. */
export async function pinKey(db: DbOrTrx, name: string, key: Uint8Array, now: number): Promise<Uint8Array> {
  await db
    .insertInto("pinned_keys")
    .values({ name, public_key: Buffer.from(key), pinned_at: now })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
  return (await findPinnedKey(db, name))!;
}

export async function pinRouterKey(db: DbOrTrx, key: Uint8Array, now: number): Promise<Uint8Array> {
  await db
    .insertInto("router_identity")
    .values({ id: 1, public_key: Buffer.from(key), pinned_at: now })
    .onConflict((oc) => oc.column("id").doNothing())
    .execute();
  const row = await db.selectFrom("router_identity").select("public_key").where("id", "=", 1).executeTakeFirstOrThrow();
  return new Uint8Array(row.public_key);
}

export async function setDisposition(db: DbOrTrx, hash: string, disposition: string): Promise<void> {
  await db.updateTable("records").set({ disposition }).where("hash", "=", hash).execute();
}

export function toStoredRecord(row: {
  id: number;
  conv: string;
  seq: number;
  hash: string;
  kind: string;
  author: string;
  post_id: string;
  at: number;
  bytes: Uint8Array;
  signatures: Uint8Array;
  certificate: Uint8Array;
  disposition: string;
  stored_at: number;
}): StoredRecordRow {
  return {
    id: row.id,
    conv: row.conv,
    seq: row.seq,
    hash: row.hash,
    kind: row.kind,
    author: row.author,
    postId: row.post_id,
    at: row.at,
    bytes: new Uint8Array(row.bytes),
    signatures: new Uint8Array(row.signatures),
    certificate: new Uint8Array(row.certificate),
    disposition: row.disposition,
    storedAt: row.stored_at,
  };
}

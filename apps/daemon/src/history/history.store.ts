/** SQL for conversations and their certified records; the per-record statements are prepared once (db/raw-statements.ts). */
import type { Selectable } from "kysely";
import { ID_PREFIXES } from "@social-harness/protocol";
import type { DbOrTrx } from "../db/database.js";
import type { RecordsTable } from "./history.table.js";
import { readInSlices } from "../db/in-slices.js";
import { RawStatements, type HeldStatements } from "../db/raw-statements.js";

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

interface ConversationSqlRow {
  conv: string;
  members: string;
  contiguous_seq: number;
}

export async function findConversation(db: DbOrTrx, conv: string): Promise<ConversationRow | undefined> {
  const rows = await RawStatements.of(db).all<ConversationSqlRow>(
    db,
    "SELECT conv, members, contiguous_seq FROM conversations WHERE conv = ?",
    [conv],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return { conv: row.conv, members: JSON.parse(row.members) as string[], contiguousSeq: row.contiguous_seq };
}

/** Stores the conversation with its certified members unless it is stored; true when it was not. */
/**
 * Where a pushed record would go: its conversation, the hashes stored at its position and the one
 * before, and whether any record is stored after it (our own posts can be stored ahead).
 */
export interface Position {
  readonly conversation: ConversationRow | undefined;
  readonly atHash: string | undefined;
  readonly prevHash: string | undefined;
  readonly storedAfter: boolean;
}

const SELECT_POSITION =
  "SELECT c.conv, c.members, c.contiguous_seq, " +
  "(SELECT hash FROM records WHERE conv = ? AND seq = ?) AS at_hash, " +
  "(SELECT hash FROM records WHERE conv = ? AND seq = ?) AS prev_hash, " +
  "EXISTS (SELECT 1 FROM records WHERE conv = ? AND seq > ?) AS stored_after " +
  "FROM (SELECT 1) LEFT JOIN conversations c ON c.conv = ?";

/** These four reads in one statement: ingress asks them of every pushed record. */
export async function findPosition(db: DbOrTrx, conv: string, seq: number): Promise<Position> {
  type Row = {
    conv: string | null;
    members: string | null;
    contiguous_seq: number | null;
    at_hash: string | null;
    prev_hash: string | null;
    stored_after: number;
  };
  // FROM (SELECT 1) makes it one row always; the conversation's columns are null when it is not stored.
  const rows = await RawStatements.of(db).all<Row>(db, SELECT_POSITION, [conv, seq, conv, seq - 1, conv, seq, conv]);
  const row = rows[0]!;
  return {
    conversation:
      row.conv === null
        ? undefined
        : { conv: row.conv, members: JSON.parse(row.members!) as string[], contiguousSeq: row.contiguous_seq! },
    atHash: row.at_hash ?? undefined,
    prevHash: row.prev_hash ?? undefined,
    storedAfter: row.stored_after === 1,
  };
}

export function ensureConversation(
  held: HeldStatements,
  conv: string,
  members: readonly string[],
  now: number,
): boolean {
  const inserted = held.run(
    "INSERT INTO conversations (conv, members, contiguous_seq, created_at) VALUES (?, ?, 0, ?) ON CONFLICT (conv) DO NOTHING",
    [conv, JSON.stringify(members), now],
  );
  return inserted === 1;
}

const SELECT_RECORD_AT = "SELECT hash FROM records WHERE conv = ? AND seq = ?";

/** The hash stored at a position, inside a transaction the caller holds. */
export function recordAtHeld(held: HeldStatements, conv: string, seq: number): { hash: string } | undefined {
  return held.all<{ hash: string }>(SELECT_RECORD_AT, [conv, seq])[0];
}

/**
 * Records the daemon looks up by hash are in `records_by_hash` (`hash_indexed`: see
 * `hashIndexed`); any other is found by a scan of its conversation from the newest record back,
 * so a lookup never misses a stored record, only costs more for one nobody was expected to ask for.
 */
const BY_HASH = "SELECT * FROM records WHERE hash = ? AND hash_indexed = 1";
const BY_HASH_IN_CONVERSATION = "SELECT * FROM records WHERE conv = ? AND hash = ? ORDER BY seq DESC LIMIT 1";

export async function findRecordByHash(db: DbOrTrx, conv: string, hash: string): Promise<StoredRecordRow | undefined> {
  const raw = RawStatements.of(db);
  const row =
    (await raw.all<Selectable<RecordsTable>>(db, BY_HASH, [hash]))[0] ??
    (await raw.all<Selectable<RecordsTable>>(db, BY_HASH_IN_CONVERSATION, [conv, hash]))[0];
  return row === undefined ? undefined : toStoredRecord(row);
}

/** The stored records among `hashes`, by hash, in one read per 500 (and one scan of `conv` for those not indexed). */
export async function findRecordsByHash(
  db: DbOrTrx,
  conv: string,
  hashes: readonly string[],
): Promise<ReadonlyMap<string, StoredRecordRow>> {
  const indexed = await readInSlices(hashes, (slice) =>
    db.selectFrom("records").selectAll().where("hash", "in", slice).where("hash_indexed", "=", 1).execute(),
  );
  const found = new Map(indexed.map((row) => [row.hash, toStoredRecord(row)]));
  const rest = [...new Set(hashes)].filter((hash) => !found.has(hash));
  const scanned = await readInSlices(rest, (slice) =>
    db.selectFrom("records").selectAll().where("conv", "=", conv).where("hash", "in", slice).execute(),
  );
  for (const row of scanned) found.set(row.hash, toStoredRecord(row));
  return found;
}

/**
 * Whether a record goes into `records_by_hash`: all but the plain posts that arrive delivered and
 * our own plain posts, the bulk of a daemon's records, which nothing looks up by hash (a record
 * queued or held is looked up when its admission settles; a collective's request, answer or close
 * by the collectives). Each of those three parts names its collective by a `col_` id, text in the
 * record's CBOR, so a record whose bytes hold that text is indexed; a group's multicast marker has
 * no id and stays out. A message whose text merely holds `col_` costs its page, nothing more.
 */
export function hashIndexed(disposition: string, bytes: Uint8Array): boolean {
  if (disposition !== "own" && disposition !== "delivered") return true;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(COLLECTIVE_ID_PREFIX);
}

const COLLECTIVE_ID_PREFIX = Buffer.from(ID_PREFIXES.collective, "utf8");

const INSERT_RECORD =
  "INSERT INTO records (conv, seq, hash, kind, author, post_id, at, bytes, signatures, certificate, disposition, " +
  "stored_at, hash_indexed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

/**
 * Inserts a record, in `records_by_hash` when `hashIndexed` says so. `ifAbsent` leaves a taken
 * position alone instead of failing, and says so: the caller then reads what holds the position,
 * instead of reading before every insert.
 */
export function insertRecord(held: HeldStatements, row: Omit<StoredRecordRow, "id">, ifAbsent = false): boolean {
  const inserted = held.run(ifAbsent ? `${INSERT_RECORD} ON CONFLICT DO NOTHING` : INSERT_RECORD, [
    row.conv,
    row.seq,
    row.hash,
    row.kind,
    row.author,
    row.postId,
    row.at,
    // better-sqlite3 binds any Uint8Array (a view too) and SQLite copies it: no copy of our own.
    row.bytes,
    row.signatures,
    row.certificate,
    row.disposition,
    row.storedAt,
    hashIndexed(row.disposition, row.bytes) ? 1 : 0,
  ]);
  return inserted === 1;
}

const stepContiguous = (held: HeldStatements, conv: string, from: number, to: number) =>
  held.run("UPDATE conversations SET contiguous_seq = ? WHERE conv = ? AND contiguous_seq = ?", [to, conv, from]);
const selectStoredAfter = (held: HeldStatements, conv: string, seq: number) =>
  held.all<{ seq: number }>("SELECT seq FROM records WHERE conv = ? AND seq > ? ORDER BY seq LIMIT 256", [conv, seq]);

/**
 * After storing the record at `seq`: moves the contiguous cursor over it, and over the records
 * already stored right after it (our own posts can be stored ahead of the records before them).
 * `open` stores the conversation when the cursor could not move, and says whether it was missing:
 * a known conversation, the usual case, costs no statement for it. `storedAfter` false (the
 * caller knows that nothing is stored after `seq`) skips looking ahead. True when the cursor now
 * rests on `seq` with nothing stored after it: the conversation is at its tip.
 */
export function advanceContiguous(
  held: HeldStatements,
  conv: string,
  seq: number,
  open?: () => boolean,
  storedAfter = true,
): boolean {
  const step = () => stepContiguous(held, conv, seq - 1, seq) === 1;
  // A missing conversation, once stored, lets the cursor move; a record ahead of it never does.
  const moved = step() || (open?.() === true && step());
  if (!moved) return false;
  if (!storedAfter) return true;
  let cursor = seq;
  for (;;) {
    const ahead = selectStoredAfter(held, conv, cursor);
    let next = cursor;
    for (const row of ahead) {
      if (row.seq !== next + 1) break;
      next = row.seq;
    }
    if (next === cursor) return cursor === seq && ahead.length === 0;
    stepContiguous(held, conv, cursor, next);
    if (next - cursor < ahead.length) return false;
    cursor = next;
  }
}

/** The newest stored record of a conversation: what a proposal names as `prev`. */
export async function findHead(db: DbOrTrx, conv: string): Promise<{ seq: number; hash: string } | undefined> {
  const rows = await RawStatements.of(db).all<{ seq: number; hash: string }>(
    db,
    "SELECT seq, hash FROM records WHERE conv = ? ORDER BY seq DESC LIMIT 1",
    [conv],
  );
  return rows[0];
}

export async function cursors(db: DbOrTrx): Promise<Record<string, number>> {
  const rows = await db.selectFrom("conversations").select(["conv", "contiguous_seq"]).execute();
  return Object.fromEntries(rows.map((r) => [r.conv, r.contiguous_seq]));
}

/** Owner listing: conversations by key, each with its contiguous length and the time of its last record. */
export async function listConversations(
  db: DbOrTrx,
  after: string | undefined,
  limit: number,
): Promise<{ conv: string; members: string[]; seq: number; lastAt: number | null }[]> {
  let query = db
    .selectFrom("conversations")
    .leftJoin("records", (join) =>
      join.onRef("records.conv", "=", "conversations.conv").onRef("records.seq", "=", "conversations.contiguous_seq"),
    )
    .select([
      "conversations.conv as conv",
      "conversations.members as members",
      "conversations.contiguous_seq as seq",
      "records.at as lastAt",
    ]);
  if (after !== undefined) query = query.where("conversations.conv", ">", after);
  const rows = await query.orderBy("conversations.conv").limit(limit).execute();
  return rows.map((r) => ({ ...r, members: JSON.parse(r.members) as string[], lastAt: r.lastAt ?? null }));
}

/** Owner listing: a conversation's records after `after`, in order. */
export async function listRecords(db: DbOrTrx, conv: string, after: number, limit: number): Promise<StoredRecordRow[]> {
  const rows = await db
    .selectFrom("records")
    .selectAll()
    .where("conv", "=", conv)
    .where("seq", ">", after)
    .orderBy("seq")
    .limit(limit)
    .execute();
  return rows.map(toStoredRecord);
}

/** The newest stored records across conversations, newest first. */
export async function latestRecords(db: DbOrTrx, limit: number): Promise<StoredRecordRow[]> {
  const rows = await db.selectFrom("records").selectAll().orderBy("id", "desc").limit(limit).execute();
  return rows.map(toStoredRecord);
}

/** Sets the disposition of the record `hash` of `conv` (looked up as findRecordByHash does). */
export async function setDisposition(db: DbOrTrx, conv: string, hash: string, disposition: string): Promise<void> {
  const raw = RawStatements.of(db);
  if (
    (await raw.run(db, "UPDATE records SET disposition = ? WHERE hash = ? AND hash_indexed = 1", [disposition, hash])) >
    0
  )
    return;
  await raw.run(
    db,
    "UPDATE records SET disposition = ? WHERE id = (SELECT id FROM records WHERE conv = ? AND hash = ? ORDER BY seq DESC LIMIT 1)",
    [disposition, conv, hash],
  );
}

export function toStoredRecord(row: Selectable<RecordsTable>): StoredRecordRow {
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

/**
 * SQL for the durable inbox: pending items, acknowledgment tombstones and retired rows. The insert,
 * the reads by page and by token and the settling update are prepared once (db/raw-statements.ts);
 * the rest goes through Kysely.
 */
import { InboundItemSchema, LocalGuidanceSchema, type InboundItem, type LocalGuidance } from "@social-harness/protocol";
import { prepared } from "@social-harness/sqlite";
import { sql, type Kysely, type Selectable, type SqlBool } from "kysely";
import type { DaemonDatabase, DbOrTrx } from "../db/database.js";
import type { InboxTable } from "./inbox.table.js";
import { RawStatements, type HeldStatements } from "../db/raw-statements.js";

type Db = Kysely<DaemonDatabase>;

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

type Row = Omit<Selectable<InboxTable>, "settled_by">;

/**
 * A row's item and guidance, checked by their schemas. The row keeps the stored JSON as written: a
 * webhook occurrence is a pure function of those exact bytes (webhooks/event-occurrence.ts).
 */
export function inboxValuesOf(row: Pick<InboxRow, "item" | "guidance">): {
  item: InboundItem;
  guidance?: LocalGuidance;
} {
  const item = InboundItemSchema.parse(JSON.parse(row.item));
  return row.guidance === null ? { item } : { item, guidance: LocalGuidanceSchema.parse(JSON.parse(row.guidance)) };
}

/**
 * A row as one read_inbox entry's JSON, its stored item and guidance spliced in as written. Only
 * Inbox.admit writes them, as JSON.stringify of the item this daemon built from a verified record
 * (or of its guidance), so a page is not parsed, checked and encoded again on every read.
 */
export function entryJsonOf(row: Pick<InboxRow, "token" | "item" | "guidance">): string {
  const guidance = row.guidance === null ? "" : `,"guidance":${row.guidance}`;
  return `{"deliveryToken":${JSON.stringify(row.token)},"item":${row.item}${guidance}}`;
}

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

/** A row's values in COLUMNS' order (a statement in raw mode, RawStatements.values). */
type RowValues = readonly [
  id: number,
  token: string,
  kind: string,
  item: string,
  guidance: string | null,
  size: number,
  conv: string | null,
  recordHash: string | null,
  state: string,
  createdAt: number,
  settledAt: number | null,
];

function inboxRowOfValues(row: RowValues): InboxRow {
  const [id, token, kind, item, guidance, size, conv, recordHash, state, createdAt, settledAt] = row;
  return {
    id,
    token,
    kind,
    item,
    guidance,
    size,
    conv,
    recordHash,
    state: state as InboxRow["state"],
    createdAt,
    settledAt,
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
): Promise<void> {
  const size = Buffer.byteLength(row.item) + (row.guidance === null ? 0 : Buffer.byteLength(row.guidance));
  await RawStatements.of(db).run(
    db,
    "INSERT INTO inbox (token, kind, item, guidance, size, conv, record_hash, state, created_at) " +
      "VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
    [row.token, row.kind, row.item, row.guidance, size, row.conv, row.recordHash, row.createdAt],
  );
}

const SELECT_COLUMNS = COLUMNS.join(", ");

export async function findInboxRow(db: DbOrTrx, token: string): Promise<InboxRow | undefined> {
  const [row] = await RawStatements.of(db).all<Row>(db, `SELECT ${SELECT_COLUMNS} FROM inbox WHERE token = ?`, [token]);
  return row === undefined ? undefined : toInboxRow(row);
}

/** Whether a token's row exists and is pending. */
export async function isPendingToken(db: DbOrTrx, token: string): Promise<boolean> {
  const rows = await RawStatements.of(db).all<{ state: string }>(db, "SELECT state FROM inbox WHERE token = ?", [
    token,
  ]);
  return rows[0]?.state === "pending";
}

/**
 * Pending rows of `columns` with after < id <= upper, in insertion order, at most `limit`. The
 * limit is written into the SQL, not bound: SQLite prepares a statement again whenever a bound
 * LIMIT is bound (~10 µs, more than reading the row), and each limit used is one cached statement.
 */
function selectPending(columns: string, limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`not a row limit: ${limit}`);
  return `SELECT ${columns} FROM inbox WHERE state = 'pending' AND id > ? AND id <= ? ORDER BY id LIMIT ${limit}`;
}

const SELECT_OLDEST = selectPending(SELECT_COLUMNS, 1);

/** Pending rows with after < id <= upper, in insertion order. */
export async function pendingRows(db: DbOrTrx, after: number, upper: number, limit: number): Promise<InboxRow[]> {
  const rows = await RawStatements.of(db).all<Row>(db, selectPending(SELECT_COLUMNS, limit), [after, upper]);
  return rows.map(toInboxRow);
}

/** What a read_inbox page needs of a row: its entry's parts, its size and its place. */
export interface PageRow {
  readonly id: number;
  readonly token: string;
  readonly item: string;
  readonly guidance: string | null;
  readonly size: number;
  readonly recordHash: string | null;
}

const PAGE_COLUMNS = "id, token, item, guidance, size, record_hash";

type PageValues = [id: number, token: string, item: string, guidance: string | null, size: number, hash: string | null];

/** A page's rows are read as arrays (RawStatements.values): their objects are built here. */
const pageRowOf = (v: readonly [...PageValues, ...unknown[]]): PageRow => ({
  id: v[0],
  token: v[1],
  item: v[2],
  guidance: v[3],
  size: v[4],
  recordHash: v[5],
});

/** pendingRows with only the columns of a page (the item and guidance as stored). */
export async function pageRows(db: DbOrTrx, after: number, upper: number, limit: number): Promise<PageRow[]> {
  const values = await RawStatements.of(db).values<PageValues>(db, selectPending(PAGE_COLUMNS, limit), [after, upper]);
  return values.map(pageRowOf);
}

/**
 * A first page and its upper bound in one statement: every row the statement reads is in its
 * snapshot, so the page needs no bound, and `max(id)` of the same snapshot is the bound its
 * continuations keep. `upper` is 0 when the page is empty (nothing follows it either).
 */
export async function firstPageRows(db: DbOrTrx, limit: number): Promise<{ rows: PageRow[]; upper: number }> {
  const values = await RawStatements.of(db).values<[...PageValues, upper: number]>(
    db,
    selectPending(`${PAGE_COLUMNS}, (SELECT max(id) FROM inbox) AS upper`, limit),
    [0, Number.MAX_SAFE_INTEGER],
  );
  return { rows: values.map(pageRowOf), upper: values[0]?.[6] ?? 0 };
}

/** A read_inbox page holds at most 50 items and 2 MiB of stored item content (seed 000). */
export const PAGE_ITEMS = 50;
export const PAGE_BYTES = 2 * 1024 * 1024;

/** A page as SQLite writes it (pageJson). */
export interface PageJson {
  /** Its entries' JSON (entryJsonOf) joined by commas in id order; null when it is empty. */
  readonly entries: string | null;
  readonly count: number;
  /** Its items' stored content. */
  readonly bytes: number;
  /** The largest id on it. */
  readonly last: number | null;
  /** Whether a pending row follows it within its upper bound. */
  readonly more: boolean;
  /** The inbox's largest id: a first page's bound. */
  readonly upper: number;
}

// Delivery tokens are canonical base64url after `dlv_`, so json_quote writes what JSON.stringify does.
const PAGE_JSON = `SELECT entries, count, bytes, last,
    EXISTS (SELECT 1 FROM inbox WHERE state = 'pending' AND id > last AND id <= ?),
    (SELECT max(id) FROM inbox)
  FROM (SELECT group_concat(entry, ',' ORDER BY id) AS entries, count(*) AS count, sum(size) AS bytes, max(id) AS last
    FROM (SELECT id, size,
        '{"deliveryToken":' || json_quote(token) || ',"item":' || item || coalesce(',"guidance":' || guidance, '') || '}'
          AS entry
      FROM inbox WHERE state = 'pending' AND id > ? AND id <= ? ORDER BY id LIMIT ${PAGE_ITEMS}))`;

type PageJsonValues = [
  entries: string | null,
  count: number,
  bytes: number | null,
  last: number | null,
  more: number,
  upper: number | null,
];

/**
 * Up to PAGE_ITEMS pending rows with after < id <= upper, written by SQLite as one read_inbox
 * page in one statement (one snapshot). One string crosses into JavaScript instead of six values
 * a row: 42 µs of CPU a first page of 50 against 64 µs read as rows and joined in JavaScript (best
 * of 20 rounds in process; docs/performance.md, "Issue 18: read_inbox written by SQLite"). It is
 * not trimmed to the byte budget: a page over it is the caller's to make of rows (pageRows).
 */
export async function pageJson(db: DbOrTrx, after: number, upper: number): Promise<PageJson> {
  // The parameters in the order of their `?`s: the EXISTS's bound, then the page's.
  const [row] = await RawStatements.of(db).values<PageJsonValues>(db, PAGE_JSON, [upper, after, upper]);
  const [entries, count, bytes, last, more, max] = row!;
  return { entries, count, bytes: bytes ?? 0, last, more: more === 1, upper: max ?? 0 };
}

/** The oldest pending row, inside a transaction the caller holds. */
export function oldestPendingHeld(held: HeldStatements): InboxRow | undefined {
  const [row] = held.values<RowValues>(SELECT_OLDEST, [0, Number.MAX_SAFE_INTEGER]);
  return row === undefined ? undefined : inboxRowOfValues(row);
}

export async function maxInboxId(db: DbOrTrx): Promise<number> {
  const rows = await RawStatements.of(db).all<{ max: number | null }>(db, "SELECT max(id) AS max FROM inbox", []);
  return Number(rows[0]?.max ?? 0);
}

/**
 * The condition of the partial index inbox_pending (migration 0010), written as a literal: SQLite
 * uses a partial index only for a query whose WHERE names its condition, and a bound parameter
 * does not.
 */
export const PENDING = sql<SqlBool>`state = 'pending'`;

const selectPendingCount = prepared((db: Db) =>
  db
    .selectFrom("inbox")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where(PENDING),
);

export async function countPending(db: DbOrTrx): Promise<number> {
  return Number((await selectPendingCount(db)).rows[0]?.count ?? 0);
}

const SETTLE = "UPDATE inbox SET state = ?, settled_at = ?, settled_by = ? WHERE token = ? AND state = 'pending'";

/**
 * An acknowledgment inside a transaction the caller holds (prepared statements): "unknown" when no
 * row has the token, else whether this call settled it (false: it was settled already).
 */
export function acknowledgeHeld(held: HeldStatements, token: string, by: string, now: number): "unknown" | boolean {
  if (held.all("SELECT 1 FROM inbox WHERE token = ?", [token]).length === 0) return "unknown";
  return settleHeld(held, token, "acknowledged", by, now);
}

type Settled = "acknowledged" | "retired";

/** Settles a pending row; false when it was not pending. */
export async function settleInboxRow(
  db: DbOrTrx,
  token: string,
  state: Settled,
  by: string,
  now: number,
): Promise<boolean> {
  return (await RawStatements.of(db).run(db, SETTLE, [state, now, by, token])) > 0;
}

/** The same, inside a transaction the caller holds. */
export function settleHeld(held: HeldStatements, token: string, state: Settled, by: string, now: number): boolean {
  return held.run(SETTLE, [state, now, by, token]) > 0;
}

/** Owner listing: pending rows newest first, paged by id. */
export async function listPendingRows(db: DbOrTrx, before: number | undefined, limit: number): Promise<InboxRow[]> {
  let query = db.selectFrom("inbox").select(COLUMNS).where(PENDING);
  if (before !== undefined) query = query.where("id", "<", before);
  const rows = await query.orderBy("id", "desc").limit(limit).execute();
  return rows.map(toInboxRow);
}

const selectRequestsIn = prepared((db: Db, conv: string, after: number) =>
  db
    .selectFrom("inbox")
    .select(["id", "item"])
    .where("kind", "=", "collectiveRequest")
    .where("conv", "=", conv)
    .where("id", ">", after)
    .where("state", "in", ["pending", "acknowledged"]),
);

/** Every pending collective request, oldest first (restart recovery retires them). */
export async function pendingRequestRows(
  db: DbOrTrx,
): Promise<{ token: string; item: string; conv: string | null; record_hash: string | null }[]> {
  return db
    .selectFrom("inbox")
    .select(["token", "item", "conv", "record_hash"])
    .where(PENDING)
    .where("kind", "=", "collectiveRequest")
    .orderBy("id")
    .execute();
}

/** Collective requests admitted into `conv` after the row `after`, not retired. */
export async function requestRowsIn(db: DbOrTrx, conv: string, after: number): Promise<{ id: number; item: string }[]> {
  return (await selectRequestsIn(db, conv, after)).rows;
}

/*
 * An answer is `self`'s post in the request's conversation whose collective part names the request:
 * in the record's dCBOR, the key "op" followed by text "answer", and the id as one text string
 * (header 0x78 0x2f: 47 bytes). A text part holds its words inside one longer string, so it cannot
 * match both.
 */
const ANSWER_OP = Buffer.from("626f7066616e73776572", "hex");

/** Which of `requests` (collective ids in their conversations) `self` has answered, from its history. */
export async function answeredRequests(
  db: DbOrTrx,
  self: string,
  requests: readonly { id: string; conv: string }[],
): Promise<Set<string>> {
  const answered = new Set<string>();
  for (const request of requests) {
    const id = Buffer.concat([Buffer.from([0x78, Buffer.byteLength(request.id)]), Buffer.from(request.id)]);
    const row = await sql<{ one: number }>`
      SELECT 1 AS one FROM records
      WHERE conv = ${request.conv} AND author = ${self} AND kind = 'post'
        AND instr(bytes, ${id}) > 0 AND instr(bytes, ${ANSWER_OP}) > 0
      LIMIT 1`.execute(db);
    if (row.rows.length > 0) answered.add(request.id);
  }
  return answered;
}

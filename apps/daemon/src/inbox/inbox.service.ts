/**
 * The durable inbox (seed 000 "MCP Events and inbox", "Delivery handoff"). Each admitted item is
 * bound in the same transaction to a fresh DeliveryToken and an immutable payload; a token is
 * never rebound; acknowledgment leaves a tombstone that read_event can still read. Pages hold at
 * most 50 items and 2 MiB of stored content, and a continuation keeps the first page's upper
 * insertion bound so that later arrivals belong to the next read. Reading never acknowledges. A
 * request admitted past its deadline enters as an operationFailed item (inbox/expiry.ts).
 */
import {
  continueSpan,
  decodeBase64url,
  deliveryTokenOf,
  encodeBase64url,
  hop,
  mintId,
  tracingOn,
  type InboundItem,
  type LocalGuidance,
  type TraceSpan,
} from "@social-harness/protocol";
import { heldTransaction, type DaemonStore, type DbOrTrx } from "../db/database.js";
import type { HeldStatements } from "../db/raw-statements.js";
import { admissibleItem } from "./expiry.js";
import {
  acknowledgeHeld,
  countPending,
  entryJsonOf,
  findInboxRow,
  pageJson,
  pageRows,
  firstPageRows,
  PAGE_BYTES,
  PAGE_ITEMS,
  isPendingToken,
  insertInboxRow,
  answeredRequests,
  listPendingRows,
  maxInboxId,
  oldestPendingHeld,
  pendingRows,
  pendingRequestRows,
  requestRowsIn,
  settleHeld,
  settleInboxRow,
  inboxValuesOf,
  type InboxRow,
} from "./inbox.store.js";

export interface InboxEntry {
  readonly deliveryToken: string;
  readonly item: InboundItem;
  readonly guidance?: LocalGuidance;
}

export type InboxErrorReason = "unknown-delivery" | "unknown-event" | "invalid-cursor";

export class InboxError extends Error {
  override readonly name = "InboxError";
  constructor(
    readonly reason: InboxErrorReason,
    message: string,
  ) {
    super(message);
  }
}

export interface AdmitInput {
  readonly item: InboundItem;
  readonly guidance?: LocalGuidance;
  readonly conv?: string;
  readonly recordHash?: string;
}

function encodeCursor(after: number, upper: number): string {
  return encodeBase64url(Buffer.from(`inbox:${after}:${upper}`));
}

/** read_inbox's JSON from its entries' JSON, joined, and the cursor of what follows. */
function pageText(entries: string, next: string | undefined): string {
  return next === undefined ? `{"items":[${entries}]}` : `{"items":[${entries}],"nextCursor":${JSON.stringify(next)}}`;
}

function decodeCursor(cursor: string): { after: number; upper: number } {
  const bytes = decodeBase64url(cursor);
  const match = bytes === undefined ? null : /^inbox:(\d{1,15}):(\d{1,15})$/.exec(Buffer.from(bytes).toString("utf8"));
  if (match === null) throw new InboxError("invalid-cursor", "the cursor was not issued by this inbox");
  return { after: Number(match[1]), upper: Number(match[2]) };
}

export function entryOf(row: InboxRow): InboxEntry {
  return { deliveryToken: row.token, ...inboxValuesOf(row) };
}

export class Inbox {
  private readonly listeners = new Set<() => void>();
  /** Inbox spans of admitted items, ended at the next event (only while tracing). */
  private readonly spans: TraceSpan[] = [];
  private settling = 0;

  constructor(
    private readonly store: DaemonStore,
    private readonly now: () => number = Date.now,
    private readonly onAcknowledged?: () => void,
  ) {}

  /**
   * Binds an item to a fresh token inside the caller's transaction. Call `changed()` after the
   * transaction commits so watchers see the new pending count.
   */
  async admit(trx: DbOrTrx, input: AdmitInput): Promise<string> {
    const token = mintId("delivery");
    // Tracing: from admission to the watchers' event, under the record's ingress or firewall span.
    const span = continueSpan("inbox", input.recordHash);
    if (span !== undefined) this.spans.push(span);
    const item = admissibleItem(input.item, this.now());
    await insertInboxRow(trx, {
      token,
      kind: item.kind,
      item: JSON.stringify(item),
      guidance: input.guidance === undefined ? null : JSON.stringify(input.guidance),
      conv: input.conv ?? null,
      recordHash: input.recordHash ?? null,
      createdAt: this.now(),
    });
    return token;
  }

  /** Admits an item in its own transaction and notifies watchers. */
  async admitNow(input: AdmitInput): Promise<string> {
    const token = await this.store.db.transaction().execute((trx) => this.admit(trx, input));
    this.changed();
    return token;
  }

  /**
   * Tells watchers (push streams, webhook delivery) once the change is on disk, so no consumer
   * is offered a token whose binding a power loss could undo. A failed fsync tells no one; the
   * same failure refuses the router's acknowledgment, so the router pushes the record again.
   */
  changed(): void {
    this.store.durable().then(
      () => {
        hop("inbox.event");
        if (this.spans.length > 0) for (const span of this.spans.splice(0)) span.end();
        for (const listener of this.listeners) listener();
      },
      () => undefined,
    );
  }

  /** Subscribes to changes of the pending set; returns the unsubscribe function. */
  watch(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * A page of pending items as read_inbox's JSON, `{items, nextCursor?}`, made of the stored
   * entries (entryJsonOf). SQLite writes the page (pageJson) unless it is over the byte budget or
   * its rows' read spans are traced; then it is made of rows. Never acknowledges.
   */
  async readPage(cursor?: string): Promise<string> {
    const bound = cursor === undefined ? undefined : decodeCursor(cursor);
    if (!tracingOn()) {
      const page = await pageJson(this.store.db, bound?.after ?? 0, bound?.upper ?? Number.MAX_SAFE_INTEGER);
      if (page.count <= 1 || page.bytes <= PAGE_BYTES) {
        const next = page.more && page.last !== null ? encodeCursor(page.last, bound?.upper ?? page.upper) : undefined;
        return pageText(page.entries ?? "", next);
      }
    }
    const { after, upper, rows } =
      bound === undefined
        ? { after: 0, ...(await firstPageRows(this.store.db, PAGE_ITEMS + 1)) }
        : await this.pageAfter(bound);
    const items: string[] = [];
    let bytes = 0;
    let last = after;
    for (const row of rows.slice(0, PAGE_ITEMS)) {
      // A single item larger than the byte budget still comes, alone.
      if (items.length > 0 && bytes + row.size > PAGE_BYTES) break;
      items.push(entryJsonOf(row));
      continueSpan("read", row.recordHash)?.end();
      bytes += row.size;
      last = row.id;
    }
    const more = rows.some((row) => row.id > last);
    return pageText(items.join(","), more ? encodeCursor(last, upper) : undefined);
  }

  /** A continuation page: the rows after a cursor's place, up to the first page's bound. */
  private async pageAfter({ after, upper }: { after: number; upper: number }) {
    return { after, upper, rows: await pageRows(this.store.db, after, upper, PAGE_ITEMS + 1) };
  }

  /**
   * Counts settlements, each once as it starts and once as it ends; only a settlement moves an item
   * out of pending. So an item read pending while this count was n is still pending while it is n.
   */
  get settlements(): number {
    return this.settling;
  }

  /** Settles a pending item inside the caller's transaction (a webhook's receipt, a restart's retirement). */
  async settleIn(
    trx: DbOrTrx,
    token: string,
    state: "acknowledged" | "retired",
    by: string,
    at: number,
  ): Promise<boolean> {
    this.settling++;
    try {
      return await settleInboxRow(trx, token, state, by, at);
    } finally {
      this.settling++;
    }
  }

  /** The same, inside a transaction of prepared statements the caller holds (a webhook's retiring commit). */
  settleHeld(held: HeldStatements, token: string, state: "acknowledged" | "retired", by: string, at: number): boolean {
    this.settling += 2;
    return settleHeld(held, token, state, by, at);
  }

  /** The oldest pending row, inside a transaction of prepared statements the caller holds. */
  oldestPendingHeld(held: HeldStatements): InboxRow | undefined {
    return oldestPendingHeld(held);
  }

  /** The oldest pending row, read in `db` (a webhook's next occurrence). */
  async oldestPending(db: DbOrTrx): Promise<InboxRow | undefined> {
    return (await pendingRows(db, 0, Number.MAX_SAFE_INTEGER, 1))[0];
  }

  /** Acknowledges a delivery; idempotent for a settled token; unknown tokens fail. */
  async acknowledge(token: string, by: string): Promise<void> {
    this.settling++;
    let settled;
    try {
      settled = await heldTransaction(this.store.db, "durable", (held) => acknowledgeHeld(held, token, by, this.now()));
    } finally {
      this.settling++;
    }
    if (settled === "unknown") throw new InboxError("unknown-delivery", "no delivery has this token");
    if (!settled) return;
    this.onAcknowledged?.();
    this.changed();
  }

  /** The retained item an event id names, whatever its delivery state. Never acknowledges. */
  async readEvent(eventId: string): Promise<{ item: InboundItem; guidance?: LocalGuidance }> {
    const token = deliveryTokenOf(eventId);
    const row = token === undefined ? undefined : await findInboxRow(this.store.db, token);
    if (row === undefined) throw new InboxError("unknown-event", "no event has this id");
    const { item, guidance } = entryOf(row);
    return guidance === undefined ? { item } : { item, guidance };
  }

  async find(token: string): Promise<InboxRow | undefined> {
    return findInboxRow(this.store.db, token);
  }

  /** Whether the token's item is still pending (its state alone, not the item). */
  isPending(token: string): Promise<boolean> {
    return isPendingToken(this.store.db, token);
  }

  pendingCount(): Promise<number> {
    return countPending(this.store.db);
  }

  /** The id of the newest row: items admitted later have larger ids. */
  lastId(): Promise<number> {
    return maxInboxId(this.store.db);
  }

  /** Every pending collective request's row, oldest first, inside the caller's transaction. */
  pendingRequestRowsIn(trx: DbOrTrx): ReturnType<typeof pendingRequestRows> {
    return pendingRequestRows(trx);
  }

  /** Collective requests admitted into `conv` after the row `after` and not retired (read or not). */
  async requestsIn(
    conv: string,
    after: number,
  ): Promise<{ id: number; item: Extract<InboundItem, { kind: "collectiveRequest" }> }[]> {
    const rows = await requestRowsIn(this.store.db, conv, after);
    return rows.flatMap((row) => {
      const { item } = inboxValuesOf({ item: row.item, guidance: null });
      return item.kind === "collectiveRequest" ? [{ id: row.id, item }] : [];
    });
  }

  /**
   * Owner listing: pending items, newest first, paged by row id. A question `self` has already
   * answered (its answer is in the history) says so, though it stays pending until acknowledged.
   */
  async listForOwner(
    page: { before?: number; limit: number },
    self: string,
  ): Promise<{
    items: (InboxEntry & { receivedAt: number; conversation: string | null; answered: boolean })[];
    pendingCount: number;
    nextBefore?: number;
  }> {
    const rows = await listPendingRows(this.store.db, page.before, page.limit + 1);
    const shown = rows.slice(0, page.limit).map((row) => ({ row, entry: entryOf(row) }));
    const requests = shown.flatMap(({ row, entry }) =>
      entry.item.kind === "collectiveRequest" && row.conv !== null ? [{ id: entry.item.id, conv: row.conv }] : [],
    );
    const answered = requests.length === 0 ? new Set<string>() : await answeredRequests(this.store.db, self, requests);
    return {
      items: shown.map(({ row, entry }) => ({
        ...entry,
        receivedAt: row.createdAt,
        conversation: row.conv,
        answered: entry.item.kind === "collectiveRequest" && answered.has(entry.item.id),
      })),
      pendingCount: await this.pendingCount(),
      nextBefore: rows.length > page.limit ? shown.at(-1)?.row.id : undefined,
    };
  }
}

/**
 * One authenticated daemon link. Pushes go through one queue per link so each conversation's
 * records leave in sequence order, from the daemon's own cursor; at most WINDOW records wait for
 * the daemon's acknowledgment (sent only after its commit), which bounds a large catch-up.
 */
import {
  continueSpan,
  corkForTurn,
  encodeFrame,
  encodeStoredRecordFrame,
  hop,
  tracingOn,
  type RouterFrame,
  type TraceSpan,
} from "@social-harness/protocol";
import type { Logger } from "pino";
import type { WebSocket } from "ws";
import { headsForMember, recordsAfter, type StoredRecord } from "../conversations/conversations.store.js";
import type { RecentRecords } from "../conversations/append.service.js";
import type { RouterStore } from "../db/database.js";

const WINDOW = 512;
const PAGE = 256;

/** Each record's frame, encoded once for every member it is pushed to. */
const encodedFrames = new WeakMap<StoredRecord, Uint8Array>();

function frameBytes(record: StoredRecord): Uint8Array {
  let bytes = encodedFrames.get(record);
  if (bytes === undefined) {
    bytes = encodeStoredRecordFrame(record);
    encodedFrames.set(record, bytes);
  }
  return bytes;
}

/**
 * Tracing: a `push` span per member under the record's `certify` span, its context carried in this
 * member's frame (so that frame is encoded for this member alone); undefined for an untraced record.
 */
function tracedPush(record: StoredRecord, member: string): { span: TraceSpan; bytes: Uint8Array } | undefined {
  const span = continueSpan("push", record.hash, { "social_harness.member": member }, false);
  if (span === undefined) return undefined;
  const traceparent = span.traceparent;
  if (traceparent === undefined) return { span, bytes: frameBytes(record) };
  return { span, bytes: encodeStoredRecordFrame(record, traceparent) };
}

export class LinkSession {
  /** The highest seq sent per conversation; undefined until the daemon's first sync. */
  private sent: Map<string, number> | undefined;
  private readonly dirty = new Set<string>();
  /** The highest committed seq this link has heard of, per conversation. */
  private readonly latest = new Map<string, number>();
  private unacked = 0;
  private windowWaiters: (() => void)[] = [];
  private flushing: Promise<void> | undefined;
  /** The pass after the running one, shared by every flush asked for meanwhile. */
  private again: Promise<void> | undefined;
  private closed = false;

  constructor(
    readonly name: string,
    readonly publicKey: Uint8Array,
    private readonly socket: WebSocket,
    private readonly store: RouterStore,
    private readonly recent: RecentRecords,
    private readonly log: Logger,
    /** Whether this daemon wants its own posts pushed back (the link's `echoOwn`). */
    private readonly echoesOwn = true,
  ) {}

  send(frame: RouterFrame): void {
    this.sendBytes(encodeFrame(frame));
  }

  /** Frames sent in one turn of the event loop leave in one write (corkForTurn). */
  private sendBytes(bytes: Uint8Array): void {
    if (this.closed) return;
    corkForTurn(this.socket);
    this.socket.send(bytes);
  }

  close(code = 1000, reason = ""): void {
    if (!this.closed) this.socket.close(code, reason);
    this.markClosed();
  }

  markClosed(): void {
    this.closed = true;
    for (const wake of this.windowWaiters) wake();
    this.windowWaiters = [];
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Pushes from the daemon's cursors: every conversation it is behind on is flushed. The first
   * sync names every conversation the daemon has (others start at 0); a later one, sent after a
   * gap, rewinds only the conversations it names.
   */
  async sync(cursors: Readonly<Record<string, number>>): Promise<void> {
    const heads = await headsForMember(this.store.db, this.name);
    const first = this.sent === undefined;
    const sent = this.sent ?? new Map<string, number>();
    for (const { conv, seq } of heads) {
      this.heard(conv, seq);
      const cursor = cursors[conv] ?? (first ? 0 : sent.get(conv));
      if (cursor === undefined) continue;
      sent.set(conv, cursor);
      if (seq > cursor) this.dirty.add(conv);
    }
    this.sent = sent;
    await this.flush();
    this.send({ t: "synced" });
  }

  /**
   * A record was committed in a conversation this daemon belongs to. Posts go back to their author
   * too (unless `answeredOwn` moved its cursor over them): an author whose certification answer
   * was lost learns its new head this way.
   */
  notify(conv: string, seq: number): void {
    if (this.sent === undefined) return;
    this.heard(conv, seq);
    if ((this.sent.get(conv) ?? 0) >= seq) return;
    this.dirty.add(conv);
    // A pass is already waiting to run after the one in progress, and it will take this conversation.
    if (this.again !== undefined) return;
    void this.flush().catch((error: unknown) => this.log.error({ err: error, agent: this.name }, "push failed"));
  }

  /**
   * The author was just answered with the certificate of its post at `seq`. A daemon that stores
   * its own posts from their certificates (`echoOwn: false`) and was pushed everything before it
   * has the record: its cursor moves over it and nothing is pushed. A daemon that is behind, or one
   * that lost the answer (its next link syncs from its own cursor), is pushed it like any member.
   */
  answeredOwn(conv: string, seq: number): void {
    if (this.echoesOwn || this.sent === undefined) return;
    if ((this.sent.get(conv) ?? 0) !== seq - 1) return;
    this.sent.set(conv, seq);
    this.heard(conv, seq);
  }

  /** Re-checks every conversation against the database, for when a notification may be lost. */
  async refresh(): Promise<void> {
    if (this.sent === undefined) return;
    for (const { conv, seq } of await headsForMember(this.store.db, this.name)) {
      this.heard(conv, seq);
      if ((this.sent.get(conv) ?? 0) < seq) this.dirty.add(conv);
    }
    await this.flush();
  }

  private heard(conv: string, seq: number): void {
    if ((this.latest.get(conv) ?? 0) < seq) this.latest.set(conv, seq);
  }

  acknowledge(): void {
    this.unacked = Math.max(0, this.unacked - 1);
    const wake = this.windowWaiters.shift();
    wake?.();
  }

  private flush(): Promise<void> {
    if (this.flushing !== undefined) {
      // A flush is running; it rereads `dirty` until empty, and one more pass after it catches
      // what came as it ended. Every caller meanwhile shares that pass: a member whose window stays
      // full holds one waiting pass, not one per record committed.
      this.again ??= this.flushing
        .finally(() => {
          this.again = undefined;
        })
        .then(() => (this.dirty.size > 0 ? this.flush() : undefined));
      return this.again;
    }
    this.flushing = this.drain().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async drain(): Promise<void> {
    while (this.dirty.size > 0 && !this.closed) {
      const conv = this.dirty.values().next().value as string;
      this.dirty.delete(conv);
      await this.drainConversation(conv);
    }
  }

  /**
   * Sends a conversation's records from the link's cursor on, strictly in sequence. A sync may
   * rewind the cursor while this awaits the database or the window; every send checks that the
   * record still follows the cursor, and starts over from it when it does not.
   */
  private async drainConversation(conv: string): Promise<void> {
    for (;;) {
      const after = this.sent?.get(conv) ?? 0;
      if (after >= (this.latest.get(conv) ?? Number.POSITIVE_INFINITY)) return;
      const cached = this.recent.get(conv, after + 1);
      const page = cached === undefined ? await recordsAfter(this.store.db, conv, after, PAGE) : [cached];
      let rewound = false;
      for (const record of page) {
        while (this.unacked >= WINDOW && !this.closed) {
          await new Promise<void>((resolve) => this.windowWaiters.push(resolve));
        }
        if (this.closed) return;
        if ((this.sent?.get(conv) ?? 0) !== record.seq - 1) {
          rewound = true;
          break;
        }
        const push = tracingOn() ? tracedPush(record, this.name) : undefined;
        this.sendBytes(push?.bytes ?? frameBytes(record));
        hop("router.record-pushed", this.name);
        push?.span.end();
        this.unacked++;
        this.sent?.set(conv, record.seq);
      }
      if (!rewound && cached === undefined && page.length < PAGE) return;
    }
  }
}

/**
 * Delivery of bound intents until each is certified or refused (SPEC §6): an intent whose answer is
 * pending or lost waits in its conversation and is proposed again when the conversation's head
 * moves, when the link comes back, after a restart, or after a pause that doubles up to 30 s. The
 * router's idempotency on author + PostId means a post is certified at most once however often.
 */
import type { Logger } from "pino";
import type { Db } from "../db/database.js";
import { boundIntents, type IntentRow } from "./intents.store.js";
import { SendError } from "./send-error.js";

/** What a delivered post answers (posts.service.ts PostReceipt). */
interface Delivered {
  readonly conv: string;
  readonly postId: string;
}

export interface RedeliveryDeps<R extends Delivered> {
  readonly db: Db;
  /** Proposes one bound intent through its conversation's lane (posts/proposal-lanes.ts). */
  readonly propose: (intent: IntentRow) => Promise<R>;
  readonly log: Logger;
}

export class Redelivery<R extends Delivered> {
  private readonly inFlight = new Set<string>();
  /** Conversations with a bound intent that is neither in flight nor certified. */
  private readonly waiting = new Set<string>();
  private readonly retryTimers = new Map<string, NodeJS.Timeout>();
  private readonly retryDelays = new Map<string, number>();

  constructor(private readonly deps: RedeliveryDeps<R>) {}

  /** Proposes a bound intent; one left pending waits to be proposed again. */
  deliver(intent: IntentRow): Promise<R> {
    this.inFlight.add(intent.postId);
    return this.deps
      .propose(intent)
      .catch((error: unknown) => {
        if (error instanceof SendError && error.reason === "delivery-pending") this.wait(intent.conv);
        throw error;
      })
      .finally(() => this.inFlight.delete(intent.postId));
  }

  /** A post of `conv` was certified: its next wait starts from the shortest pause again. */
  certified(conv: string): void {
    this.retryDelays.delete(conv);
  }

  /** Proposes every bound intent again (after a restart or when the link comes back). */
  async resume(): Promise<void> {
    for (const intent of await boundIntents(this.deps.db)) this.retry(intent);
  }

  /** A record was stored in `conv`: its head moved, so its waiting intents go again. */
  headMoved(conv: string): void {
    if (!this.waiting.delete(conv)) return;
    void boundIntents(this.deps.db, conv).then(
      (intents) => intents.forEach((intent) => this.retry(intent)),
      (error: unknown) => this.deps.log.error({ err: error }, "could not read bound intents"),
    );
  }

  private retry(intent: IntentRow): void {
    if (this.inFlight.has(intent.postId)) return;
    this.deliver(intent).then(
      (receipt) => this.deps.log.info({ postId: receipt.postId, conv: receipt.conv }, "delivered a bound post"),
      (error: unknown) => {
        const reason = error instanceof SendError ? error.reason : "internal";
        this.deps.log.warn({ err: error, postId: intent.postId, reason }, "a bound post is still pending");
      },
    );
  }

  /**
   * Notes a conversation whose bound intent is still waiting, and proposes it again after a pause
   * that doubles up to 30 s, unless a record stored in the conversation (its head moved) or the
   * link's return resumes it first. The router's answer may have been lost while the post was
   * certified; proposing again is how the daemon learns it.
   */
  wait(conv: string): void {
    this.waiting.add(conv);
    if (this.retryTimers.has(conv)) return;
    const delay = Math.min((this.retryDelays.get(conv) ?? 500) * 2, 30_000);
    this.retryDelays.set(conv, delay);
    const timer = setTimeout(() => {
      this.retryTimers.delete(conv);
      this.headMoved(conv);
    }, delay);
    timer.unref();
    this.retryTimers.set(conv, timer);
  }

  /** Stops the retry timers (daemon shutdown). */
  stop(): void {
    for (const timer of this.retryTimers.values()) clearTimeout(timer);
    this.retryTimers.clear();
  }
}

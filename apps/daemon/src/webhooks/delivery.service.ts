/**
 * The webhook delivery engine (seed 000 "Webhook consumer"): one item in flight, offered in inbox
 * order to the registration that owns the inbox. The occurrence (event id and exact body bytes) is
 * stored before the first attempt; callback I/O runs outside any transaction. A 2xx retires the
 * item and clears the occurrence in one transaction and the next item goes at once. Failures retry
 * on the schedule of delivery-schedule.ts; 410 and 413 suspend terminally. Expired registrations
 * wait, keeping their occurrence and diagnostics for a refresh. The retiring commit reads the next
 * pending item and stores its occurrence, and the next step starts from it without reading the
 * rows back.
 */
import type { Logger } from "pino";
import { heldTransaction, syncDurableNow, type DaemonStore } from "../db/database.js";
import { RawStatements } from "../db/raw-statements.js";
import type { Inbox } from "../inbox/inbox.service.js";
import type { InboxRow } from "../inbox/inbox.store.js";
import type { CallbackSender } from "./callback-client.js";
import { buildOccurrence } from "./event-occurrence.js";
import type { SecretVault } from "./secret-vault.js";
import { callbackHeaders, parseWebhookSecret } from "./signing.js";
import type { DaemonMetrics } from "../metrics/daemon-metrics.js";
import type { FailureCategory } from "./webhooks.schema.js";
import { retryDelayMs, scheduleOf, systemClock, type Clock, type DeliverySchedule } from "./delivery-schedule.js";
import {
  clearOccurrence,
  countFailure,
  discardSettledOccurrences,
  findOccurrence,
  countAttempt,
  insertOccurrence,
  recordReceiptHeld,
  replaceOccurrenceHeld,
  subscriptionStateHeld,
  retainedSubscriptions,
  scheduleRetry,
  type OccurrenceRow,
  type SubscriptionRow,
} from "./webhooks.store.js";

export interface DeliveryDeps {
  readonly store: DaemonStore;
  readonly inbox: Inbox;
  readonly vault: SecretVault;
  readonly sender: CallbackSender;
  readonly log: Logger;
  readonly schedule?: Partial<DeliverySchedule>;
  readonly clock?: Clock;
  /** Jitter source in [0, 1). */
  readonly random?: () => number;
  readonly metrics?: Pick<DaemonMetrics, "webhookAttempted" | "acknowledged">;
}

interface Attempt {
  readonly subscriptionId: string;
  readonly retry: boolean;
  readonly latencyMs: number;
  readonly at: number;
}

function categoryOf(status: number): FailureCategory {
  if (status >= 300 && status < 400) return "redirect";
  if (status >= 400 && status < 500) return "http_4xx";
  return "http_5xx";
}

function occurrenceOf(subscriptionId: string, row: InboxRow, at: number): OccurrenceRow {
  const { eventId, body } = buildOccurrence(row);
  return { subscriptionId, token: row.token, eventId, body, createdAt: at };
}

/** Thrown inside a retiring commit to roll it back: the stored occurrence is no longer this attempt's. */
class Superseded extends Error {}

/** A status after which the receiver must not see this item again (seed 000). */
const TERMINAL_STATUSES: ReadonlySet<number> = new Set([410, 413]);

type Next = { readonly waitMs: number } | "now" | "idle";

/**
 * What a retiring commit leaves for the next step: the registration as it stored it, the next
 * occurrence, and the inbox's settlement count when that item was read pending.
 */
interface Carried {
  readonly subscription: SubscriptionRow;
  readonly occurrence: OccurrenceRow;
  readonly settlements: number;
}

export class WebhookDelivery {
  private readonly schedule: DeliverySchedule;
  private readonly clock: Clock;
  private readonly random: () => number;
  private running: Promise<void> | undefined;
  private stopped = false;
  private woken = false;
  private wakeIdle: (() => void) | undefined;
  private inFlight: { subscriptionId: string; controller: AbortController } | undefined;
  /** Cancels the attempt in flight; kept across attempts until one is cancelled. */
  private attempts = new AbortController();
  private unwatch: (() => void) | undefined;
  private opened: { readonly id: string; readonly sealed: string; readonly key: Buffer } | undefined;
  private carried: Carried | undefined;
  /** Counts wakes from the registrations' side; a retire carries nothing across one. */
  private generation = 0;
  /** The generation whose registrations cannot deliver: a new inbox item then wakes nothing. */
  private undeliverable: number | undefined;

  constructor(private readonly deps: DeliveryDeps) {
    this.schedule = scheduleOf(deps.schedule);
    this.clock = deps.clock ?? systemClock;
    this.random = deps.random ?? Math.random;
  }

  /**
   * Restart recovery for callbacks: drops every stored occurrence whose inbox row is no longer
   * pending (e.g. a collective request recovery retired). Run after recoverCollectives, before start.
   */
  async recover(): Promise<number> {
    return discardSettledOccurrences(this.deps.store.db);
  }

  /** Starts the delivery loop; it runs until `stop`. */
  start(): void {
    if (this.running !== undefined) return;
    this.unwatch = this.deps.inbox.watch(() => this.undeliverable !== this.generation && this.nudge());
    this.running = this.loop();
  }

  /** Re-evaluates at once from the stored registrations (subscribe, refresh, resume or revoke). */
  wake(): void {
    this.carried = undefined;
    this.generation++;
    this.nudge();
  }

  /** Re-evaluates at once (the pending items changed). */
  private nudge(): void {
    this.woken = true;
    const wake = this.wakeIdle;
    this.wakeIdle = undefined;
    wake?.();
  }

  /** Abandons an attempt in flight for a registration being revoked; its outcome is then ignored. */
  cancel(subscriptionId: string): void {
    if (this.inFlight?.subscriptionId === subscriptionId) this.inFlight.controller.abort();
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unwatch?.();
    this.inFlight?.controller.abort();
    this.wake();
    await this.running;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      this.woken = false;
      let next: Next;
      try {
        next = await this.step();
      } catch (error) {
        this.deps.log.error({ err: error }, "webhook delivery step failed; retrying in a second");
        next = { waitMs: 1_000 };
      }
      if (this.stopped) break;
      if (next !== "now") await this.idle(next === "idle" ? undefined : next.waitMs);
    }
  }

  private idle(ms: number | undefined): Promise<void> {
    if (this.woken) return Promise.resolve();
    return new Promise((resolve) => {
      const controller = new AbortController();
      this.wakeIdle = () => {
        controller.abort();
        resolve();
      };
      if (ms !== undefined) {
        void this.clock.sleep(ms, controller.signal).then(() => {
          this.wakeIdle = undefined;
          resolve();
        });
      }
    });
  }

  /** One decision: what the owning registration does now, and when to look again. */
  private async step(): Promise<Next> {
    const { db } = this.deps.store;
    const now = this.clock.now();
    const carried = this.carried;
    this.carried = undefined;
    const generation = this.generation;
    this.undeliverable = undefined;
    const subscription = carried?.subscription ?? (await retainedSubscriptions(db))[0];
    // No active registration, or an expired lease, cannot deliver; a change to one wakes the loop.
    if (subscription === undefined || subscription.state !== "active" || subscription.leaseExpiresAt <= now) {
      this.undeliverable = generation;
      return "idle";
    }

    let occurrence = carried?.occurrence ?? (await findOccurrence(db, subscription.id));
    if (occurrence !== undefined) {
      // A carried item was read pending inside the retiring commit; no settlement since means it still is.
      const unsettled = carried !== undefined && carried.settlements === this.deps.inbox.settlements;
      if (!unsettled && !(await this.deps.inbox.isPending(occurrence.token))) {
        await clearOccurrence(db, subscription.id, occurrence.eventId);
        return "now";
      }
    } else {
      const row = await this.deps.inbox.oldestPending(db);
      if (row === undefined) return "idle";
      const built = occurrenceOf(subscription.id, row, now);
      occurrence = built;
      // Persisted before use: a restart retries these exact bytes under this id. The commit may be
      // relaxed: the bytes are a pure function of the inbox row, so a power loss that drops this
      // row rebuilds the same occurrence, and the retiring commit that follows is fsync'd. (While
      // items keep coming, each retiring commit stores the next occurrence and this is skipped.)
      await heldTransaction(db, "relaxed", (held) => insertOccurrence(held, built));
    }

    const due = subscription.nextAttemptAt ?? now;
    if (due > now) return { waitMs: Math.min(due, subscription.leaseExpiresAt) - now };
    return this.attempt(subscription, occurrence, generation);
  }

  private async attempt(subscription: SubscriptionRow, occurrence: OccurrenceRow, generation: number): Promise<Next> {
    const key = this.signingKey(subscription);
    if (this.attempts.signal.aborted) this.attempts = new AbortController();
    const controller = this.attempts;
    this.inFlight = { subscriptionId: subscription.id, controller };
    const started = this.clock.now();
    let outcome;
    try {
      outcome = await this.deps.sender.post({
        url: subscription.url,
        headers: callbackHeaders({
          key,
          id: occurrence.eventId,
          timestampSeconds: Math.floor(this.clock.now() / 1000),
          body: occurrence.body,
          subscriptionId: subscription.id,
        }),
        body: occurrence.body,
        timeoutMs: this.schedule.attemptTimeoutMs,
        signal: controller.signal,
      });
    } finally {
      this.inFlight = undefined;
    }
    if (outcome.kind === "cancelled") return "now";
    const at = this.clock.now();
    const attempt = { subscriptionId: subscription.id, retry: subscription.attempts > 0, latencyMs: at - started, at };
    if (outcome.kind === "response" && outcome.status >= 200 && outcome.status <= 299) {
      await this.retire(subscription, occurrence, attempt, generation);
      return "now";
    }
    const category = outcome.kind === "failure" ? outcome.category : categoryOf(outcome.status);
    const terminal = outcome.kind === "response" && TERMINAL_STATUSES.has(outcome.status) ? outcome.status : null;
    await this.fail({ ...attempt, category }, terminal);
    return "now";
  }

  /** The registration's signing key, opened from the vault once per sealed secret. */
  private signingKey(subscription: SubscriptionRow): Buffer {
    const cached = this.opened;
    if (cached?.id === subscription.id && cached.sealed === subscription.sealedSecret) return cached.key;
    const key = parseWebhookSecret(this.deps.vault.open(subscription.sealedSecret, subscription.id));
    if (key === undefined) throw new Error(`the stored secret of ${subscription.id} is not a webhook secret`);
    this.opened = { id: subscription.id, sealed: subscription.sealedSecret, key };
    return key;
  }

  /**
   * Retires a delivered item and stores the next one's occurrence in the same commit: the oldest
   * item still pending once this one is settled, read inside the transaction.
   */
  private async retire(
    subscription: SubscriptionRow,
    occurrence: OccurrenceRow,
    attempt: Attempt,
    generation: number,
  ): Promise<void> {
    const { subscriptionId: id, at } = attempt;
    // One synchronous transaction of prepared statements (the hot path of a delivery).
    const retired = await heldTransaction(this.deps.store.db, "durable", (held) => {
      // Revoked meanwhile: the item stays pending for read_inbox or a later consumer.
      const stored = subscriptionStateHeld(held, id);
      if (stored === undefined || stored.state === "revoked") return undefined;
      this.deps.inbox.settleHeld(held, occurrence.token, "acknowledged", `webhook:${id}`, at);
      // The next item's occurrence takes this one's place in this commit, so the next step starts from it.
      const next = this.deps.inbox.oldestPendingHeld(held);
      const settlements = this.deps.inbox.settlements;
      const upcoming = next === undefined ? undefined : occurrenceOf(id, next, at);
      // The occurrence was replaced or cleared meanwhile: nothing is settled.
      if (!replaceOccurrenceHeld(held, id, occurrence.eventId, upcoming))
        throw new Superseded("the occurrence was replaced or cleared");
      recordReceiptHeld(held, id, at);
      countAttempt(held, { ...attempt, outcome: "delivered" });
      // Carried on only while the registration is the one this step read, its receipt recorded.
      const unchanged =
        stored.state === subscription.state &&
        stored.sealedSecret === subscription.sealedSecret &&
        stored.leaseExpiresAt === subscription.leaseExpiresAt;
      return { upcoming: unchanged ? upcoming : undefined, settlements };
    }).catch((error: unknown) => {
      if (error instanceof Superseded) return undefined;
      throw error;
    });
    if (retired === undefined) return;
    // The retirement is on disk before the next item goes out: after a power cut an item delivered
    // later never finds an earlier one pending again. Synced in this turn: the next delivery waits on it.
    syncDurableNow(this.deps.store.db);
    await this.deps.store.durable();
    this.deps.metrics?.webhookAttempted("delivered", attempt.retry);
    this.deps.metrics?.acknowledged();
    // Every change to a registration from outside also wakes the loop (a new generation).
    if (retired.upcoming !== undefined && generation === this.generation) {
      this.carried = {
        subscription: {
          ...subscription,
          attempts: 0,
          failingSince: null,
          lastError: null,
          nextAttemptAt: null,
          lastDeliveryAt: at,
          delivered: subscription.delivered + 1,
        },
        occurrence: retired.upcoming,
        settlements: retired.settlements,
      };
    }
    this.deps.inbox.changed();
  }

  private async fail(attempt: Attempt & { category: FailureCategory }, terminal: number | null) {
    const { subscriptionId, category, at } = attempt;
    const outcome = await this.deps.store.db.transaction().execute(async (trx) => {
      const counted = await countFailure(trx, subscriptionId, { category, at });
      if (counted === undefined || counted.state !== "active") return undefined;
      const window = at - (counted.failingSince ?? at);
      let suspended = true;
      if (terminal !== null) {
        await scheduleRetry(trx, subscriptionId, { suspend: true, terminalStatus: terminal });
        this.deps.log.warn({ subscription: subscriptionId, status: terminal }, "webhook receiver rejected terminally");
      } else if (counted.attempts >= this.schedule.suspendAttempts && window >= this.schedule.suspendWindowMs) {
        await scheduleRetry(trx, subscriptionId, { suspend: true, terminalStatus: null });
        this.deps.log.warn({ subscription: subscriptionId, attempts: counted.attempts }, "webhook suspended");
      } else {
        suspended = false;
        const delay = retryDelayMs(counted.attempts, this.schedule, this.random);
        await scheduleRetry(trx, subscriptionId, { nextAttemptAt: at + delay });
      }
      const outcome = suspended ? "suspended" : "failed";
      countAttempt(RawStatements.of(trx).within(trx), { ...attempt, outcome });
      return outcome;
    });
    if (outcome !== undefined) this.deps.metrics?.webhookAttempted(outcome, attempt.retry);
  }
}

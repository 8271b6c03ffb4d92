/**
 * Webhook registrations (seed 000 "Webhook consumer"): subscribe (verify, claim the inbox, persist),
 * refresh under the same id, unsubscribe, and the owner's status, revoke and resume. One consumer owns
 * the inbox: a retained registration (active, suspended or expired, until revoked) holds the claim.
 * The claim and the durable row are taken together after the challenge, in one serialized section
 * that request cancellation cannot interrupt. Secrets are sealed before they are stored.
 */
import type { Logger } from "pino";
import type { DaemonStore } from "../db/database.js";
import type { InboxConsumers } from "../events/consumers.js";
import type { Principal } from "../identity/identity.js";
import type { CallbackSender } from "./callback-client.js";
import type { WebhookDelivery } from "./delivery.service.js";
import type { SecretVault } from "./secret-vault.js";
import { parseWebhookSecret, secretFingerprint } from "./signing.js";
import { runChallenge, VerificationCache } from "./verification.js";
import {
  parseSubscribe,
  parseUnsubscribe,
  subscriptionIdOf,
  SubscriptionOwnerError,
  WebhookError,
  type FailureCategory,
  type SubscriptionStatus,
} from "./webhooks.schema.js";
import { canonicalJson } from "../canonical-json.js";
import {
  findSubscription,
  hasOccurrence,
  liftSuspension,
  countTroubled,
  listSubscriptions,
  refreshRegistration,
  retainedSubscriptions,
  revokeRegistration,
  writeRegistration,
  type SubscriptionRow,
} from "./webhooks.store.js";

export const UNSAFE_LOCAL_WARNING =
  "UNSAFE: --unsafe-allow-local-callbacks is on; webhook callbacks may use plain http:// and reach loopback and " +
  "private addresses. Use it only for tests and local hosts.";

export interface SubscriptionsDeps {
  readonly store: DaemonStore;
  readonly vault: SecretVault;
  readonly consumers: InboxConsumers;
  readonly delivery: WebhookDelivery;
  readonly sender: CallbackSender;
  readonly log: Logger;
  /** `--unsafe-allow-local-callbacks`. */
  readonly allowLocal: boolean;
  /** Deadline of the verification POST. */
  readonly challengeTimeoutMs: number;
  readonly now?: () => number;
}

/** The events/subscribe result (mcp-events.md §8.2). */
export type SubscribeResult = {
  readonly id: string;
  readonly refreshBefore: string;
  readonly cursor: null;
  readonly truncated: false;
  readonly deliveryStatus?: {
    readonly active: boolean;
    readonly lastError: FailureCategory | null;
    readonly lastDeliveryAt?: string;
    readonly failedSince?: string;
  };
};

/** The state an owner sees: expiry is derived from the lease; suspension outranks it. */
export function stateOf(row: SubscriptionRow, now: number): SubscriptionStatus["state"] {
  if (row.state === "revoked") return "revoked";
  if (row.state === "suspended") return "suspended";
  return row.leaseExpiresAt <= now ? "expired" : "active";
}

export class Subscriptions {
  private readonly now: () => number;
  private readonly verified: VerificationCache;
  /** Inbox leases held for retained registrations, by subscription id. */
  private readonly leases = new Map<string, string>();
  /** Lease expiry of each registration that claims the inbox; a refresh extends it. */
  private readonly expiry = new Map<string, number>();
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: SubscriptionsDeps) {
    this.now = deps.now ?? Date.now;
    this.verified = new VerificationCache(this.now);
  }

  /** At startup: a registration whose lease is running owns the inbox again before any consumer can ask. */
  async restore(): Promise<void> {
    for (const row of await retainedSubscriptions(this.deps.store.db)) {
      if (row.leaseExpiresAt <= this.now()) continue;
      const claim = this.claim(row.id, row.leaseExpiresAt);
      if (!claim.ok)
        this.deps.log.error({ subscription: row.id }, "a second retained webhook registration cannot own the inbox");
    }
  }

  /** Claims the inbox for a registration until its lease expires (seed 000). */
  private claim(id: string, leaseExpiresAt: number) {
    const previous = this.expiry.get(id);
    this.expiry.set(id, leaseExpiresAt);
    const claim = this.deps.consumers.claim({
      kind: "webhook",
      key: id,
      expiresAt: () => this.expiry.get(id) ?? 0,
      onLapsed: () => {
        this.leases.delete(id);
        this.expiry.delete(id);
      },
    });
    if (claim.ok) this.leases.set(id, claim.lease);
    else if (previous === undefined) this.expiry.delete(id);
    else this.expiry.set(id, previous);
    return claim;
  }

  /** events/subscribe: validate, verify the callback, then claim and persist together. */
  async subscribe(
    principal: Principal,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<SubscribeResult> {
    if (this.deps.allowLocal) this.deps.log.warn(UNSAFE_LOCAL_WARNING);
    const parsed = parseSubscribe(principal, params, this.deps.allowLocal);
    if (!parsed.ok) throw new WebhookError(parsed.failure);
    const { key, secret, leaseMs } = parsed.value;
    const id = subscriptionIdOf(key);
    await this.checkOwnership(id);

    if (!this.verified.has(principal, key.url, secret)) {
      const verdict = await runChallenge({
        sender: this.deps.sender,
        url: key.url,
        subscriptionId: id,
        key: parseWebhookSecret(secret)!,
        timeoutMs: this.deps.challengeTimeoutMs,
        now: this.now(),
        signal,
      });
      if (!verdict.ok) {
        this.deps.log.info({ subscription: id, reason: verdict.reason }, "webhook verification failed");
        throw new WebhookError({ kind: "callback-endpoint", reason: verdict.reason });
      }
      this.verified.remember(principal, key.url, secret);
    }

    // From here on the request's cancellation no longer matters: claim and row commit together.
    const row = await this.serially(async () => {
      await this.checkOwnership(id);
      const now = this.now();
      const wasClaimed = this.leases.has(id);
      const claim = this.claim(id, now + leaseMs);
      if (!claim.ok) throw this.forbidden(claim.owner);
      const sealed = {
        sealedSecret: this.deps.vault.seal(secret, id),
        secretFingerprint: secretFingerprint(secret),
        leaseExpiresAt: now + leaseMs,
        now,
      };
      const existing = await findSubscription(this.deps.store.db, id);
      try {
        if (existing !== undefined && existing.state !== "revoked") {
          await refreshRegistration(this.deps.store.db, id, sealed);
        } else {
          await writeRegistration(this.deps.store.db, {
            id,
            principal,
            url: key.url,
            eventName: key.name,
            arguments: canonicalJson(key.arguments),
            ...sealed,
          });
        }
      } catch (error) {
        if (!wasClaimed) {
          this.deps.consumers.release(claim.lease);
          this.leases.delete(id);
          this.expiry.delete(id);
        }
        throw error;
      }
      return { existing, current: (await findSubscription(this.deps.store.db, id))! };
    });
    this.deps.delivery.wake();
    this.deps.log.info(
      { subscription: id, fingerprint: row.current.secretFingerprint, refreshed: row.existing !== undefined },
      "webhook subscribed",
    );
    return this.resultOf(row.current, row.existing !== undefined && row.existing.state !== "revoked");
  }

  /** events/unsubscribe: revokes the registration the key names. */
  async unsubscribe(principal: Principal, params: Record<string, unknown>): Promise<Record<string, never>> {
    const parsed = parseUnsubscribe(principal, params);
    if (!parsed.ok) throw new WebhookError(parsed.failure);
    const id = subscriptionIdOf(parsed.value);
    const row = await findSubscription(this.deps.store.db, id);
    if (row === undefined || row.state === "revoked") throw new WebhookError({ kind: "unknown-subscription" });
    await this.revokeNow(id, principal);
    return {};
  }

  /** Registrations suspended, and active ones whose deliveries are failing. */
  troubled(): Promise<{ suspended: number; failing: number }> {
    return countTroubled(this.deps.store.db);
  }

  async list(): Promise<SubscriptionStatus[]> {
    const rows = await listSubscriptions(this.deps.store.db);
    return Promise.all(rows.map((row) => this.statusOf(row)));
  }

  async status(id: string): Promise<SubscriptionStatus> {
    return this.statusOf(await this.require(id));
  }

  /** Owner revocation: ends the registration, releases the inbox, keeps every pending item. */
  async revoke(id: string): Promise<SubscriptionStatus> {
    await this.require(id);
    await this.revokeNow(id, "owner");
    return this.status(id);
  }

  /** Owner resume: lifts a suspension unless it is terminal. */
  async resume(id: string): Promise<SubscriptionStatus> {
    const row = await this.require(id);
    if (row.state === "revoked") throw new SubscriptionOwnerError("revoked", "this subscription was revoked");
    if (row.terminalStatus !== null) {
      throw new SubscriptionOwnerError(
        "terminal",
        `the receiver rejected delivery with HTTP ${row.terminalStatus}; only revoking the subscription clears this`,
      );
    }
    if (await liftSuspension(this.deps.store.db, id, this.now())) this.deps.delivery.wake();
    return this.status(id);
  }

  private async revokeNow(id: string, by: string): Promise<void> {
    await this.serially(async () => {
      await revokeRegistration(this.deps.store.db, id, by, this.now());
      const lease = this.leases.get(id);
      if (lease !== undefined) this.deps.consumers.release(lease);
      this.leases.delete(id);
      this.expiry.delete(id);
    });
    this.deps.delivery.cancel(id);
    this.deps.log.info({ subscription: id, by }, "webhook revoked");
  }

  private async require(id: string): Promise<SubscriptionRow> {
    const row = await findSubscription(this.deps.store.db, id);
    if (row === undefined) throw new SubscriptionOwnerError("unknown-subscription", "no subscription has this id");
    return row;
  }

  /**
   * Another consumer may not own the inbox; and changing the callback requires revoking the
   * retained registration, even one whose lease expired (seed 000).
   */
  private async checkOwnership(id: string): Promise<void> {
    const owner = this.deps.consumers.current();
    if (owner !== undefined && !(owner.kind === "webhook" && owner.key === id)) throw this.forbidden(owner.kind);
    const retained = await retainedSubscriptions(this.deps.store.db);
    if (retained.some((row) => row.id !== id)) throw this.forbidden("webhook");
  }

  private forbidden(owner: "push" | "webhook"): WebhookError {
    return new WebhookError({
      kind: "forbidden",
      owner,
      reason:
        owner === "push"
          ? "a push stream (events/stream) owns this inbox"
          : "another webhook subscription owns this inbox; it must be revoked first",
    });
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private resultOf(row: SubscriptionRow, refreshed: boolean): SubscribeResult {
    const result = {
      id: row.id,
      refreshBefore: new Date(row.leaseExpiresAt).toISOString(),
      cursor: null,
      truncated: false,
    } as const;
    if (!refreshed) return result;
    return {
      ...result,
      deliveryStatus: {
        active: row.state === "active",
        lastError: row.lastError,
        ...(row.lastDeliveryAt === null ? {} : { lastDeliveryAt: new Date(row.lastDeliveryAt).toISOString() }),
        ...(row.failingSince === null ? {} : { failedSince: new Date(row.failingSince).toISOString() }),
      },
    };
  }

  private async statusOf(row: SubscriptionRow): Promise<SubscriptionStatus> {
    const inFlight = row.state !== "revoked" && (await hasOccurrence(this.deps.store.db, row.id));
    return {
      id: row.id,
      event: row.eventName,
      principal: row.principal,
      state: stateOf(row, this.now()),
      terminalRejection: row.terminalStatus !== null,
      terminalStatus: row.terminalStatus,
      attempts: row.attempts,
      failingSince: row.failingSince,
      lastError: row.lastError,
      nextAttemptAt: row.nextAttemptAt,
      leaseExpiresAt: row.leaseExpiresAt,
      lastDeliveryAt: row.lastDeliveryAt,
      delivered: row.delivered,
      inFlight,
      secretFingerprint: row.secretFingerprint,
      createdAt: row.createdAt,
      revokedAt: row.revokedAt,
    };
  }
}

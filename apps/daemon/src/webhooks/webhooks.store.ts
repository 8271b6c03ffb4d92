/**
 * SQL for webhook registrations and their in-flight callback occurrence. Every function takes the
 * database or transaction handle first; rows are mapped to camelCase in one place per table. The
 * statements of a delivery's retiring commit are prepared once and run synchronously inside the
 * transaction the delivery engine holds (db/raw-statements.ts `HeldStatements`).
 */
import { prepared } from "@social-harness/sqlite";
import type { Selectable } from "kysely";
import type { Db, DbOrTrx } from "../db/database.js";
import { RawStatements, type HeldStatements } from "../db/raw-statements.js";
import type { WebhookSubscriptionsTable } from "./webhooks.table.js";
import type { Principal } from "../identity/identity.js";
import type { FailureCategory } from "./webhooks.schema.js";

export type StoredState = "active" | "suspended" | "revoked";

export interface SubscriptionRow {
  readonly id: string;
  readonly principal: Principal;
  readonly url: string;
  readonly eventName: string;
  readonly arguments: string;
  readonly sealedSecret: string;
  readonly secretFingerprint: string;
  readonly state: StoredState;
  readonly terminalStatus: number | null;
  readonly leaseExpiresAt: number;
  readonly attempts: number;
  readonly failingSince: number | null;
  readonly lastError: FailureCategory | null;
  readonly nextAttemptAt: number | null;
  readonly lastDeliveryAt: number | null;
  readonly delivered: number;
  readonly createdAt: number;
  readonly revokedAt: number | null;
}

export interface OccurrenceRow {
  readonly subscriptionId: string;
  readonly token: string;
  readonly eventId: string;
  readonly body: Buffer;
  readonly createdAt: number;
}

type Row = Omit<Selectable<WebhookSubscriptionsTable>, "updated_at" | "revoked_by">;

const COLUMNS = [
  "id",
  "principal",
  "url",
  "event_name",
  "arguments",
  "secret",
  "secret_fingerprint",
  "state",
  "terminal_status",
  "lease_expires_at",
  "attempts",
  "failing_since",
  "last_error",
  "next_attempt_at",
  "last_delivery_at",
  "delivered",
  "created_at",
  "revoked_at",
] as const;

function toSubscription(row: Row): SubscriptionRow {
  return {
    id: row.id,
    principal: row.principal as Principal,
    url: row.url,
    eventName: row.event_name,
    arguments: row.arguments,
    sealedSecret: row.secret,
    secretFingerprint: row.secret_fingerprint,
    state: row.state as StoredState,
    terminalStatus: row.terminal_status,
    leaseExpiresAt: row.lease_expires_at,
    attempts: row.attempts,
    failingSince: row.failing_since,
    lastError: row.last_error as FailureCategory | null,
    nextAttemptAt: row.next_attempt_at,
    lastDeliveryAt: row.last_delivery_at,
    delivered: row.delivered,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

// The delivery loop runs these once per item; they are prepared once.
const SELECT_SUBSCRIPTION = `SELECT ${COLUMNS.join(", ")} FROM webhook_subscriptions WHERE id = ?`;

export async function findSubscription(db: DbOrTrx, id: string): Promise<SubscriptionRow | undefined> {
  const [row] = await RawStatements.of(db).all<Row>(db, SELECT_SUBSCRIPTION, [id]);
  return row === undefined ? undefined : toSubscription(row);
}

/** Every registration, newest first. */
export async function listSubscriptions(db: DbOrTrx): Promise<SubscriptionRow[]> {
  const rows = await db.selectFrom("webhook_subscriptions").select(COLUMNS).orderBy("created_at", "desc").execute();
  return rows.map(toSubscription);
}

/** Registrations not revoked: the ones that own the inbox (one, by the single-consumer rule). */
const selectRetained = prepared((db: Db) =>
  db.selectFrom("webhook_subscriptions").select(COLUMNS).where("state", "!=", "revoked").orderBy("created_at"),
);

export async function retainedSubscriptions(db: DbOrTrx): Promise<SubscriptionRow[]> {
  return (await selectRetained(db)).rows.map(toSubscription);
}

/** A first registration, or a new one under an id whose earlier registration was revoked. */
export async function writeRegistration(
  db: DbOrTrx,
  row: {
    id: string;
    principal: Principal;
    url: string;
    eventName: string;
    arguments: string;
    sealedSecret: string;
    secretFingerprint: string;
    leaseExpiresAt: number;
    now: number;
  },
): Promise<void> {
  const fresh = {
    principal: row.principal,
    url: row.url,
    event_name: row.eventName,
    arguments: row.arguments,
    secret: row.sealedSecret,
    secret_fingerprint: row.secretFingerprint,
    state: "active",
    terminal_status: null,
    lease_expires_at: row.leaseExpiresAt,
    attempts: 0,
    failing_since: null,
    last_error: null,
    next_attempt_at: null,
    last_delivery_at: null,
    delivered: 0,
    created_at: row.now,
    updated_at: row.now,
    revoked_at: null,
    revoked_by: null,
  };
  await db
    .insertInto("webhook_subscriptions")
    .values({ id: row.id, ...fresh })
    .onConflict((oc) => oc.column("id").doUpdateSet(fresh))
    .execute();
}

/**
 * A refresh of a retained registration: new secret and lease; a suspension without a terminal
 * rejection is lifted (the SEP's "refresh sets active"), a terminal one stays.
 */
export async function refreshRegistration(
  db: DbOrTrx,
  id: string,
  patch: { sealedSecret: string; secretFingerprint: string; leaseExpiresAt: number; now: number },
): Promise<void> {
  await db
    .updateTable("webhook_subscriptions")
    .set({
      secret: patch.sealedSecret,
      secret_fingerprint: patch.secretFingerprint,
      lease_expires_at: patch.leaseExpiresAt,
      updated_at: patch.now,
    })
    .where("id", "=", id)
    .execute();
  await liftSuspension(db, id, patch.now);
}

/** Clears a suspension that is not terminal and restarts the failure window; false otherwise. */
export async function liftSuspension(db: DbOrTrx, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable("webhook_subscriptions")
    .set({ state: "active", attempts: 0, failing_since: null, next_attempt_at: null, updated_at: now })
    .where("id", "=", id)
    .where("state", "=", "suspended")
    .where("terminal_status", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Revokes a registration and drops its occurrence; the inbox item itself stays pending. */
export async function revokeRegistration(db: DbOrTrx, id: string, by: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable("webhook_subscriptions")
    .set({ state: "revoked", revoked_at: now, revoked_by: by, next_attempt_at: null, updated_at: now })
    .where("id", "=", id)
    .where("state", "!=", "revoked")
    .executeTakeFirst();
  await db.deleteFrom("webhook_occurrences").where("subscription_id", "=", id).execute();
  return Number(result.numUpdatedRows) > 0;
}

/** Counts one failed attempt and returns the registration as it now stands. */
export async function countFailure(
  db: DbOrTrx,
  id: string,
  failure: { category: FailureCategory; at: number },
): Promise<SubscriptionRow | undefined> {
  await db
    .updateTable("webhook_subscriptions")
    .set((eb) => ({
      attempts: eb("attempts", "+", 1),
      failing_since: eb.fn.coalesce("failing_since", eb.val(failure.at)),
      last_error: failure.category,
      updated_at: failure.at,
    }))
    .where("id", "=", id)
    .where("state", "=", "active")
    .execute();
  return findSubscription(db, id);
}

/** The outcome of a counted failure: the next attempt's time, or a suspension. */
export async function scheduleRetry(
  db: DbOrTrx,
  id: string,
  next: { nextAttemptAt: number } | { suspend: true; terminalStatus: number | null },
): Promise<void> {
  await db
    .updateTable("webhook_subscriptions")
    .set(
      "suspend" in next
        ? { state: "suspended", terminal_status: next.terminalStatus, next_attempt_at: null }
        : { next_attempt_at: next.nextAttemptAt },
    )
    .where("id", "=", id)
    .where("state", "=", "active")
    .execute();
}

/**
 * What a delivery's retiring commit checks of its registration, inside a transaction the caller
 * holds: its state, and the two fields a refresh changes (the secret and the lease). (A SELECT and
 * then the receipt's UPDATE cost less than one UPDATE … RETURNING, which fills a temporary table.)
 */
export function subscriptionStateHeld(
  held: HeldStatements,
  id: string,
): Pick<SubscriptionRow, "state" | "sealedSecret" | "leaseExpiresAt"> | undefined {
  const [row] = held.values<[state: StoredState, secret: string, leaseExpiresAt: number]>(
    "SELECT state, secret, lease_expires_at FROM webhook_subscriptions WHERE id = ?",
    [id],
  );
  return row === undefined ? undefined : { state: row[0], sealedSecret: row[1], leaseExpiresAt: row[2] };
}

/** Records a 2xx receipt inside a transaction the caller holds: the failure streak ends and the next item goes at once. */
export function recordReceiptHeld(held: HeldStatements, id: string, at: number): void {
  held.run(
    "UPDATE webhook_subscriptions SET attempts = 0, failing_since = NULL, last_error = NULL, next_attempt_at = NULL, " +
      "last_delivery_at = ?, delivered = delivered + 1, updated_at = ? WHERE id = ?",
    [at, at, id],
  );
}

function toOccurrence(row: {
  subscription_id: string;
  token: string;
  event_id: string;
  body: Uint8Array;
  created_at: number;
}): OccurrenceRow {
  return {
    subscriptionId: row.subscription_id,
    token: row.token,
    eventId: row.event_id,
    body: Buffer.from(row.body),
    createdAt: row.created_at,
  };
}

const selectOccurrence = prepared((db: Db, subscriptionId: string) =>
  db.selectFrom("webhook_occurrences").selectAll().where("subscription_id", "=", subscriptionId),
);

export async function findOccurrence(db: DbOrTrx, subscriptionId: string): Promise<OccurrenceRow | undefined> {
  const [row] = (await selectOccurrence(db, subscriptionId)).rows;
  return row === undefined ? undefined : toOccurrence(row);
}

export async function hasOccurrence(db: DbOrTrx, subscriptionId: string): Promise<boolean> {
  const row = await db
    .selectFrom("webhook_occurrences")
    .select("subscription_id")
    .where("subscription_id", "=", subscriptionId)
    .executeTakeFirst();
  return row !== undefined;
}

export function insertOccurrence(held: HeldStatements, occurrence: OccurrenceRow): void {
  const { subscriptionId, token, eventId, body, createdAt } = occurrence;
  held.run(
    "INSERT INTO webhook_occurrences (subscription_id, token, event_id, body, created_at) VALUES (?, ?, ?, ?, ?)",
    [subscriptionId, token, eventId, body, createdAt],
  );
}

const DELETE_OCCURRENCE = "DELETE FROM webhook_occurrences WHERE subscription_id = ? AND event_id = ?";

/** Clears a subscription's occurrence if it is still the one for `eventId`; false otherwise. */
export async function clearOccurrence(db: DbOrTrx, subscriptionId: string, eventId: string): Promise<boolean> {
  return (await RawStatements.of(db).run(db, DELETE_OCCURRENCE, [subscriptionId, eventId])) > 0;
}

/**
 * Inside a transaction the caller holds: replaces a subscription's occurrence, if it is still the
 * one for `eventId`, with the next one in place (one row per subscription), or clears it when there
 * is no next one; false when it was not the one for `eventId`.
 */
export function replaceOccurrenceHeld(
  held: HeldStatements,
  subscriptionId: string,
  eventId: string,
  next: OccurrenceRow | undefined,
): boolean {
  if (next === undefined) return held.run(DELETE_OCCURRENCE, [subscriptionId, eventId]) > 0;
  return (
    held.run(
      "UPDATE webhook_occurrences SET token = ?, event_id = ?, body = ?, created_at = ? " +
        "WHERE subscription_id = ? AND event_id = ?",
      [next.token, next.eventId, next.body, next.createdAt, subscriptionId, eventId],
    ) > 0
  );
}

/** Drops every occurrence whose inbox row is no longer pending (acknowledged, or retired at restart). */
export async function discardSettledOccurrences(db: DbOrTrx): Promise<number> {
  const result = await db
    .deleteFrom("webhook_occurrences")
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("inbox")
            .select("inbox.id")
            .whereRef("inbox.token", "=", "webhook_occurrences.token")
            .where("inbox.state", "=", "pending"),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export interface AttemptRecord {
  readonly subscriptionId: string;
  readonly outcome: "delivered" | "failed" | "suspended";
  readonly retry: boolean;
  readonly latencyMs: number;
  readonly at: number;
}

const MINUTE_MS = 60_000;

/** Counts one delivery attempt into its subscription's minute for the Overview (no URL, status or body). */
export function countAttempt(held: HeldStatements, attempt: AttemptRecord): void {
  const delivered = attempt.outcome === "delivered" ? 1 : 0;
  held.run(
    "INSERT INTO webhook_attempt_minutes (subscription_id, minute, delivered, failed, retries, latency_ms) " +
      "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (subscription_id, minute) DO UPDATE SET " +
      "delivered = delivered + excluded.delivered, failed = failed + excluded.failed, " +
      "retries = retries + excluded.retries, latency_ms = latency_ms + excluded.latency_ms",
    [
      attempt.subscriptionId,
      Math.floor(attempt.at / MINUTE_MS) * MINUTE_MS,
      delivered,
      1 - delivered,
      attempt.retry ? 1 : 0,
      attempt.latencyMs,
    ],
  );
}

/** How many registrations are in each state that needs the owner: suspended, or active but failing. */
export async function countTroubled(db: DbOrTrx): Promise<{ suspended: number; failing: number }> {
  const row = await db
    .selectFrom("webhook_subscriptions")
    .select((eb) => [
      eb.fn.sum<number>(eb("state", "=", "suspended")).as("suspended"),
      eb.fn.sum<number>(eb.and([eb("state", "=", "active"), eb("failing_since", "is not", null)])).as("failing"),
    ])
    .executeTakeFirst();
  return { suspended: Number(row?.suspended ?? 0), failing: Number(row?.failing ?? 0) };
}

/** The webhooks' tables: subscriptions, their pending callback occurrences and past attempts counted by the minute. */

export interface WebhookSubscriptionsTable {
  /** "sub_" + hex SHA-256 of the canonical key (principal, url, event name, arguments). */
  id: string;
  principal: string;
  /** The callback URL exactly as subscribed. */
  url: string;
  event_name: string;
  /** Canonical JSON of the subscription arguments. */
  arguments: string;
  /** The Standard Webhooks secret sealed with AES-256-GCM ("enc:v1:…"); never the plaintext. */
  secret: string;
  secret_fingerprint: string;
  /** "active", "suspended" or "revoked"; expiry is derived from lease_expires_at. */
  state: string;
  /** 410 or 413 once the receiver rejected terminally; only revocation clears it. */
  terminal_status: number | null;
  lease_expires_at: number;
  attempts: number;
  failing_since: number | null;
  /** A failure category only, never a status line or body. */
  last_error: string | null;
  next_attempt_at: number | null;
  last_delivery_at: number | null;
  delivered: number;
  created_at: number;
  updated_at: number;
  revoked_at: number | null;
  revoked_by: string | null;
}

export interface WebhookOccurrencesTable {
  subscription_id: string;
  token: string;
  event_id: string;
  /** The exact body bytes every attempt sends. */
  body: Uint8Array;
  created_at: number;
}

/** Webhook attempts counted per subscription and minute, for the Overview (migration 0008). */
export interface WebhookAttemptMinutesTable {
  subscription_id: string;
  /** The minute's start, in ms since the epoch. */
  minute: number;
  delivered: number;
  /** Failed attempts, the one that suspended the registration included. */
  failed: number;
  retries: number;
  /** The sum of every attempt's latency in the minute. */
  latency_ms: number;
}

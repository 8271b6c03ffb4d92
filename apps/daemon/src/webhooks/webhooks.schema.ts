/**
 * The webhook profile's shapes and closed vocabularies (seed 000 "Webhook consumer",
 * research/mcp-events.md §8-§11): events/subscribe and events/unsubscribe params, the
 * deterministic subscription id, the lease clamp, failure categories, the refusals each transport
 * maps in one place, and the owner's status view (never the callback URL or the secret).
 */
import { createHash } from "node:crypto";
import { INBOX_ITEM_EVENT, INBOX_PENDING_EVENT } from "@social-harness/protocol";
import * as z from "zod";
import type { Principal } from "../identity/identity.js";
import { checkAddress, hostOf } from "./callback-address.js";
import { parseWebhookSecret } from "./signing.js";
import { canonicalJson } from "../canonical-json.js";

/** Lease bounds (SPEC §14): default = maximum = 24 h, floor 60 s. */
export const LEASE_MIN_MS = 60_000;
export const LEASE_MAX_MS = 24 * 60 * 60 * 1000;

/** How long a successful verification stands for the same principal, URL and secret. */
export const VERIFICATION_TTL_MS = 10 * 60 * 1000;

/** The largest full envelope sent inline (SPEC §14); larger items go as a reference. */
export const ENVELOPE_LIMIT_BYTES = 256 * 1024;

/** Why a callback attempt failed: a category only, never a status line, header or body. */
export const FAILURE_CATEGORIES = [
  "connection_refused",
  "timeout",
  "tls_error",
  "http_4xx",
  "http_5xx",
  "redirect",
  "challenge_failed",
] as const;
export type FailureCategory = (typeof FAILURE_CATEGORIES)[number];

/** Why a verification challenge failed (research/mcp-events.md §10). */
export type ChallengeFailure = Extract<
  FailureCategory,
  "challenge_failed" | "connection_refused" | "timeout" | "tls_error"
>;

/** Everything events/subscribe and events/unsubscribe refuse with; mapped to the wire in webhooks.mcp.ts. */
export type WebhookFailure =
  | { readonly kind: "invalid-params"; readonly message: string }
  | { readonly kind: "unknown-event" }
  | { readonly kind: "unknown-subscription" }
  | { readonly kind: "unsupported"; readonly feature: string; readonly value: unknown }
  | { readonly kind: "forbidden"; readonly reason: string; readonly owner: "push" | "webhook" }
  | { readonly kind: "callback-endpoint"; readonly reason: ChallengeFailure };

export class WebhookError extends Error {
  override readonly name = "WebhookError";
  constructor(readonly failure: WebhookFailure) {
    super(failure.kind);
  }
}

/** What the owner API refuses with; mapped to tRPC in webhooks.router.ts. */
export type OwnerRefusal = "unknown-subscription" | "revoked" | "terminal";

export class SubscriptionOwnerError extends Error {
  override readonly name = "SubscriptionOwnerError";
  constructor(
    readonly reason: OwnerRefusal,
    message: string,
  ) {
    super(message);
  }
}

/** A subscription's identity: the principal is part of it (mcp-events.md §8.4). */
export interface SubscriptionKey {
  readonly principal: Principal;
  readonly url: string;
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** "sub_" + hex SHA-256 of the canonical key; the same on refresh and across restarts. */
export function subscriptionIdOf(key: SubscriptionKey): string {
  const text = canonicalJson([key.principal, key.url, key.name, key.arguments]);
  return `sub_${createHash("sha256").update(text, "utf8").digest("hex")}`;
}

export function isSubscriptionId(value: string): boolean {
  return /^sub_[0-9a-f]{64}$/.test(value);
}

/** The granted lease: null or absent is the maximum; anything else is clamped, never refused. */
export function grantLeaseMs(ttlMs: number | null | undefined): number {
  if (ttlMs === null || ttlMs === undefined) return LEASE_MAX_MS;
  return Math.min(LEASE_MAX_MS, Math.max(LEASE_MIN_MS, Math.round(ttlMs)));
}

const Arguments = z.record(z.string(), z.unknown());
const SubscribeShape = z.object({
  arguments: Arguments.optional(),
  delivery: z.object({ mode: z.unknown().optional(), url: z.string(), secret: z.string() }),
  cursor: z.string().nullable().optional(),
  maxAgeMs: z.number().nullable().optional(),
  ttlMs: z.number().nullable().optional(),
});
const UnsubscribeShape = z.object({
  arguments: Arguments.optional(),
  delivery: z.object({ url: z.string() }),
});

export interface SubscribeRequest {
  readonly key: SubscriptionKey;
  readonly secret: string;
  readonly leaseMs: number;
}

export type Parsed<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly failure: WebhookFailure };

const invalid = (message: string): Parsed<never> => ({ ok: false, failure: { kind: "invalid-params", message } });

function describe(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "params"}: ${i.message}`).join("; ");
}

// The event name decides first (NotFound / Unsupported before argument checks), as in §17.
function checkEventName(params: Record<string, unknown>): Parsed<string> {
  const { name } = params;
  if (typeof name !== "string") return invalid("name: expected a string");
  if (name === INBOX_PENDING_EVENT) {
    return { ok: false, failure: { kind: "unsupported", feature: "deliveryMode", value: "webhook" } };
  }
  if (name !== INBOX_ITEM_EVENT) return { ok: false, failure: { kind: "unknown-event" } };
  return { ok: true, value: name };
}

function checkArguments(args: Record<string, unknown> | undefined): Parsed<Record<string, unknown>> {
  if (args !== undefined && Object.keys(args).length > 0)
    return invalid(`arguments: ${INBOX_ITEM_EVENT} takes no arguments`);
  return { ok: true, value: {} };
}

/**
 * A callback URL: https (or http too when local callbacks are allowed), without credentials, and
 * when it names an address literally, a public one. Names are checked again at every dial.
 */
export function checkCallbackUrl(url: string, allowLocal: boolean): Parsed<URL> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return invalid("delivery.url: not a URL");
  }
  const schemes = allowLocal ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(parsed.protocol)) {
    return invalid(allowLocal ? "delivery.url: must be https:// or http://" : "delivery.url: must be an https:// URL");
  }
  if (parsed.username !== "" || parsed.password !== "") return invalid("delivery.url: must not carry credentials");
  if (parsed.hash !== "") return invalid("delivery.url: must not carry a fragment");
  const host = hostOf(parsed);
  const verdict = checkAddress(host, { allowLocal });
  if (!verdict.ok && verdict.range !== "not-an-address") {
    return invalid(`delivery.url: ${host} is not a publicly routable address (${verdict.range})`);
  }
  return { ok: true, value: parsed };
}

/** Reads events/subscribe params; `allowLocal` is the unsafe local-callbacks option. */
export function parseSubscribe(
  principal: Principal,
  params: Record<string, unknown>,
  allowLocal: boolean,
): Parsed<SubscribeRequest & { readonly callback: URL }> {
  const name = checkEventName(params);
  if (!name.ok) return name;
  const shape = SubscribeShape.safeParse(params);
  if (!shape.success) return invalid(describe(shape.error));
  const args = checkArguments(shape.data.arguments);
  if (!args.ok) return args;
  const { mode, url, secret } = shape.data.delivery;
  if (mode !== undefined && mode !== "webhook") {
    return { ok: false, failure: { kind: "unsupported", feature: "deliveryMode", value: mode } };
  }
  const callback = checkCallbackUrl(url, allowLocal);
  if (!callback.ok) return callback;
  if (parseWebhookSecret(secret) === undefined) {
    return invalid("delivery.secret: must be whsec_ followed by the base64 of 24 to 64 bytes");
  }
  return {
    ok: true,
    value: {
      key: { principal, url, name: name.value, arguments: args.value },
      secret,
      leaseMs: grantLeaseMs(shape.data.ttlMs),
      callback: callback.value,
    },
  };
}

/** Reads events/unsubscribe params: the key without the secret (the id is never accepted). */
export function parseUnsubscribe(principal: Principal, params: Record<string, unknown>): Parsed<SubscriptionKey> {
  const name = checkEventName(params);
  if (!name.ok) return name;
  const shape = UnsubscribeShape.safeParse(params);
  if (!shape.success) return invalid(describe(shape.error));
  const args = checkArguments(shape.data.arguments);
  if (!args.ok) return args;
  return { ok: true, value: { principal, url: shape.data.delivery.url, name: name.value, arguments: args.value } };
}

/** The owner's view of a subscription: state and diagnostics, never the URL or the secret. */
export const SubscriptionStatusSchema = z.object({
  id: z.string(),
  event: z.string(),
  principal: z.enum(["runtime", "owner"]),
  state: z.enum(["active", "suspended", "expired", "revoked"]),
  terminalRejection: z.boolean(),
  terminalStatus: z.number().int().nullable(),
  attempts: z.number().int(),
  failingSince: z.number().nullable(),
  lastError: z.enum(FAILURE_CATEGORIES).nullable(),
  nextAttemptAt: z.number().nullable(),
  leaseExpiresAt: z.number(),
  lastDeliveryAt: z.number().nullable(),
  delivered: z.number().int(),
  inFlight: z.boolean(),
  secretFingerprint: z.string(),
  createdAt: z.number(),
  revokedAt: z.number().nullable(),
});
export type SubscriptionStatus = z.infer<typeof SubscriptionStatusSchema>;

/**
 * Standard Webhooks v1 signing with node:crypto (research/mcp-events.md §12): secrets are
 * `whsec_` + base64 of 24-64 bytes; a signature is `v1,` + base64 HMAC-SHA256 over
 * `id.timestamp.body`, the body as the exact bytes sent. Every attempt signs with its own
 * timestamp; the id and body never change. Secrets are shown only as a fingerprint.
 */
import { createHash, createHmac } from "node:crypto";

const SECRET = /^whsec_([A-Za-z0-9+/]+)(={0,2})$/;

/** The key bytes of a `whsec_` secret, or undefined unless it is canonical base64 of 24-64 bytes. */
export function parseWebhookSecret(secret: string): Buffer | undefined {
  const match = SECRET.exec(secret);
  if (match === null) return undefined;
  const key = Buffer.from(match[1]!, "base64");
  if (key.length < 24 || key.length > 64) return undefined;
  // Padding is optional, but the text must be the canonical spelling of its bytes (no alias).
  const canonical = key.toString("base64");
  const given = match[1]! + match[2]!;
  return given === canonical || given === canonical.replace(/=+$/, "") ? key : undefined;
}

/** `v1,<base64 HMAC-SHA256(key, id.timestamp.body)>`. */
export function signPayload(key: Buffer, id: string, timestampSeconds: number, body: Buffer): string {
  const mac = createHmac("sha256", key).update(`${id}.${timestampSeconds}.`, "utf8").update(body).digest("base64");
  return `v1,${mac}`;
}

/** The headers of one callback attempt (mcp-events.md §9.1). */
export function callbackHeaders(input: {
  readonly key: Buffer;
  readonly id: string;
  readonly timestampSeconds: number;
  readonly body: Buffer;
  readonly subscriptionId: string;
}): Record<string, string> {
  return {
    "content-type": "application/json",
    "webhook-id": input.id,
    "webhook-timestamp": String(input.timestampSeconds),
    "webhook-signature": signPayload(input.key, input.id, input.timestampSeconds, input.body),
    "x-mcp-subscription-id": input.subscriptionId,
  };
}

/** The first 12 hex characters of SHA-256 over the secret as given (`whsec_…`). */
export function secretFingerprint(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex").slice(0, 12);
}

/**
 * The signed verification challenge (research/mcp-events.md §10): events/subscribe POSTs
 * `{"type":"verification","challenge":<nonce>}` signed with the new secret, and the receiver must
 * answer 2xx with `{"challenge": <the same nonce>}`, compared in constant time. A success stands for
 * ten minutes per principal, callback URL and secret; a rotated secret is challenged again.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { CallbackSender } from "./callback-client.js";
import { callbackHeaders } from "./signing.js";
import { VERIFICATION_TTL_MS, type ChallengeFailure } from "./webhooks.schema.js";

const ANSWER_LIMIT_BYTES = 64 * 1024;

export interface ChallengeInput {
  readonly sender: CallbackSender;
  readonly url: string;
  readonly subscriptionId: string;
  readonly key: Buffer;
  readonly timeoutMs: number;
  readonly now: number;
  readonly signal?: AbortSignal;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length === right.length && timingSafeEqual(left, right);
}

function echoed(body: Buffer | undefined): string | undefined {
  if (body === undefined) return undefined;
  try {
    const answer: unknown = JSON.parse(body.toString("utf8"));
    const challenge = (answer as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === "string" ? challenge : undefined;
  } catch {
    return undefined;
  }
}

/** Runs one challenge; a value, never a throw, for anything the receiver does. */
export async function runChallenge(
  input: ChallengeInput,
): Promise<{ ok: true } | { ok: false; reason: ChallengeFailure }> {
  const challenge = randomBytes(32).toString("base64url");
  const body = Buffer.from(JSON.stringify({ type: "verification", challenge }), "utf8");
  const headers = callbackHeaders({
    key: input.key,
    id: `msg_verification_${randomBytes(16).toString("base64url")}`,
    timestampSeconds: Math.floor(input.now / 1000),
    body,
    subscriptionId: input.subscriptionId,
  });
  const outcome = await input.sender.post({
    url: input.url,
    headers,
    body,
    timeoutMs: input.timeoutMs,
    signal: input.signal,
    readBodyBytes: ANSWER_LIMIT_BYTES,
  });
  switch (outcome.kind) {
    case "cancelled":
      return { ok: false, reason: "timeout" };
    case "failure":
      return { ok: false, reason: outcome.category };
    case "response": {
      // Any non-2xx, a redirect included, fails the subscribe (the 503/425 retry rule does not apply).
      if (outcome.status < 200 || outcome.status > 299) return { ok: false, reason: "challenge_failed" };
      const answer = echoed(outcome.body);
      return answer !== undefined && sameText(answer, challenge)
        ? { ok: true }
        : { ok: false, reason: "challenge_failed" };
    }
  }
}

/** Successful verifications by (principal, URL, secret), kept as digests for ten minutes. */
export class VerificationCache {
  private readonly verified = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  private keyOf(principal: string, url: string, secret: string): string {
    return createHash("sha256").update(`${principal}\0${url}\0${secret}`, "utf8").digest("base64url");
  }

  has(principal: string, url: string, secret: string): boolean {
    const key = this.keyOf(principal, url, secret);
    const at = this.verified.get(key);
    if (at === undefined) return false;
    if (this.now() - at < VERIFICATION_TTL_MS) return true;
    this.verified.delete(key);
    return false;
  }

  remember(principal: string, url: string, secret: string): void {
    const now = this.now();
    for (const [key, at] of this.verified) if (now - at >= VERIFICATION_TTL_MS) this.verified.delete(key);
    this.verified.set(this.keyOf(principal, url, secret), now);
  }
}

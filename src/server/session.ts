/**
 * Console browser sessions (SPEC §12): an httpOnly cookie whose value is an expiry and a random
 * nonce, signed with HMAC-SHA256 under SOCIAL_HARNESS_CONSOLE_SECRET. Verification is constant
 * time and denies anything malformed, forged or expired.
 */
import "server-only";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { consoleEnv } from "./env";

/** The session cookie's name. */
export const SESSION_COOKIE = "sh_console_session";
/** How long a session lasts after login: 12 hours. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

const DOMAIN = "social-harness/console-session/v1\0";
const VALUE = /^(\d{13,15})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

function mac(secret: string, payload: string): Buffer {
  return createHmac("sha256", secret).update(DOMAIN).update(payload).digest();
}

/** A new signed session value that expires `ttlMs` after `now`. */
export function signSession(secret: string, now: number, ttlMs: number = SESSION_TTL_MS): string {
  const payload = `${now + ttlMs}.${randomBytes(16).toString("base64url")}`;
  return `${payload}.${mac(secret, payload).toString("base64url")}`;
}

export type SessionCheck =
  | { readonly ok: true; readonly expiresAt: number }
  | { readonly ok: false; readonly reason: "missing" | "malformed" | "forged" | "expired" };

/** Checks a cookie value's signature and expiry at `now`. */
export function verifySession(secret: string, value: string | undefined, now: number): SessionCheck {
  if (value === undefined || value === "") return { ok: false, reason: "missing" };
  const match = VALUE.exec(value);
  if (match === null) return { ok: false, reason: "malformed" };
  const [, expiry = "", nonce = "", signature = ""] = match;
  // Compare the spellings, not decoded bytes: the last base64url character carries padding bits,
  // so several spellings decode to the same bytes and only the canonical one may pass.
  const given = Buffer.from(signature);
  const expected = Buffer.from(mac(secret, `${expiry}.${nonce}`).toString("base64url"));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "forged" };
  const expiresAt = Number(expiry);
  if (expiresAt <= now) return { ok: false, reason: "expired" };
  return { ok: true, expiresAt };
}

/** Whether a request's session cookie value is a valid session for this console now. */
export function hasValidSession(value: string | undefined): boolean {
  return verifySession(consoleEnv().sessionSecret, value, Date.now()).ok;
}

/** Cookie attributes for a new session: httpOnly, SameSite=Lax, Path=/, Secure on HTTPS. */
export function sessionCookieOptions(secure: boolean, expiresAt: number) {
  return {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    secure,
    expires: new Date(expiresAt),
  } as const;
}

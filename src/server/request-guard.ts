/**
 * Checks every console API request passes before it reaches a daemon: a valid session cookie,
 * and for state-changing calls a same-origin browser request. SameSite=Lax alone does not stop
 * another port on the same host, which a browser treats as same-site.
 */
import "server-only";
import { apiError } from "./api-error";
import { hasValidSession, SESSION_COOKIE } from "./session";

/** The value of one cookie in a Cookie header, if present. */
export function cookieValue(header: string | null, name: string): string | undefined {
  if (header === null) return undefined;
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq !== -1 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Whether a request comes from this origin's own pages. Browsers send Sec-Fetch-Site (or at least
 * Origin) on POST; a request with neither is not a browser's and carries no ambient authority.
 * The Host header, not request.url (which Next may report as localhost), names this origin.
 */
export function isSameOrigin(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null) return site === "same-origin";
  const origin = request.headers.get("origin");
  if (origin === null) return true;
  try {
    return new URL(origin).host === request.headers.get("host");
  } catch {
    return false;
  }
}

/** The refusal for a console API request, or undefined when it may proceed. */
export function refuseApiRequest(request: Request): Response | undefined {
  const url = new URL(request.url);
  if (!hasValidSession(cookieValue(request.headers.get("cookie"), SESSION_COOKIE))) {
    return apiError(url, "UNAUTHORIZED", "sign in with the console's login link");
  }
  if (request.method !== "GET" && request.method !== "HEAD" && !isSameOrigin(request)) {
    return apiError(url, "FORBIDDEN", "cross-origin calls are refused");
  }
  return undefined;
}

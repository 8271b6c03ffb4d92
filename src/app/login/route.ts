/**
 * The one-time login link, `/login?token=<token>` (SPEC §12). The first use starts a 12-hour
 * session cookie and redirects to the console; later uses fail, unless this browser already
 * holds a valid session, which is simply sent on to the console.
 */
import { NextResponse, type NextRequest } from "next/server";
import { consoleEnv } from "@/server/env";
import { loginGate } from "@/server/login-gate";
import { hasValidSession, SESSION_COOKIE, sessionCookieOptions, SESSION_TTL_MS, signSession } from "@/server/session";

export const dynamic = "force-dynamic";

// The `token` query parameter, percent-decoded but with `+` kept: base64 tokens contain `+`,
// which form decoding (URLSearchParams) would turn into a space.
function tokenOf(url: URL): string | null {
  for (const pair of url.search.slice(1).split("&")) {
    if (!pair.startsWith("token=")) continue;
    try {
      return decodeURIComponent(pair.slice("token=".length));
    } catch {
      return null;
    }
  }
  return null;
}

// Relative locations: a route handler's request.url names "localhost" even when the browser
// used 127.0.0.1, and a redirect across hosts would lose the new cookie.
function seeOther(location: string): NextResponse {
  return new NextResponse(null, { status: 303, headers: { location, "cache-control": "no-store" } });
}

export function GET(request: NextRequest) {
  const attempt = loginGate().consume(tokenOf(request.nextUrl));
  if (attempt === "accepted") {
    const now = Date.now();
    const response = seeOther("/");
    const secure = request.headers.get("x-forwarded-proto") === "https" || request.nextUrl.protocol === "https:";
    response.cookies.set(
      SESSION_COOKIE,
      signSession(consoleEnv().sessionSecret, now),
      sessionCookieOptions(secure, now + SESSION_TTL_MS),
    );
    return response;
  }
  if (hasValidSession(request.cookies.get(SESSION_COOKIE)?.value)) return seeOther("/");
  return seeOther(`/signed-out?reason=${attempt}`);
}

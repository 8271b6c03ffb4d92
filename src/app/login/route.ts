/**
 * The one-time login link, `/login?token=<token>` (SPEC §12). The first use starts a 12-hour
 * session cookie and redirects to the console; later uses fail, unless this browser already
 * holds a valid session, which is simply sent on to the console.
 */
import { NextResponse, type NextRequest } from "next/server";
import { loginGate } from "@/server/login-gate";
import { hasValidSession, SESSION_COOKIE, sessionCookieOptions, SESSION_TTL_MS, signSession } from "@/server/session";
import { consoleEnv } from "@/server/env";

export const dynamic = "force-dynamic";

export function GET(request: NextRequest) {
  const attempt = loginGate().consume(request.nextUrl.searchParams.get("token"));
  if (attempt === "accepted") {
    const now = Date.now();
    const response = NextResponse.redirect(new URL("/", request.url), 303);
    response.cookies.set(
      SESSION_COOKIE,
      signSession(consoleEnv().sessionSecret, now),
      sessionCookieOptions(request.nextUrl.protocol === "https:", now + SESSION_TTL_MS),
    );
    return response;
  }
  if (hasValidSession(request.cookies.get(SESSION_COOKIE)?.value)) {
    return NextResponse.redirect(new URL("/", request.url), 303);
  }
  return NextResponse.redirect(new URL(`/signed-out?reason=${attempt}`, request.url), 303);
}

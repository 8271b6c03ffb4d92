/**
 * The console's request gate (Next 16 Proxy, formerly Middleware): every page and API route
 * except the login link and the signed-out page needs a valid session. Pages without one are
 * redirected to /signed-out and API calls answered 401. Layouts and route handlers check again.
 * A path that is not well-formed percent-encoding is answered 400 before Next decodes it.
 */
import { NextResponse, type NextRequest } from "next/server";
import { apiError } from "@/server/api-error";
import { isWellEncodedPath } from "@/server/path-encoding";
import { hasValidSession, SESSION_COOKIE } from "@/server/session";

const PUBLIC_PATHS = new Set(["/login", "/signed-out", "/icon.svg", "/robots.txt", "/favicon.ico"]);

export function proxy(request: NextRequest) {
  const { pathname } = request.nextUrl;
  if (PUBLIC_PATHS.has(pathname)) return NextResponse.next();
  const api = pathname === "/api" || pathname.startsWith("/api/");
  if (!hasValidSession(request.cookies.get(SESSION_COOKIE)?.value)) {
    if (api) return apiError(request.nextUrl, "UNAUTHORIZED", "sign in with the console's login link");
    return NextResponse.redirect(new URL("/signed-out", request.url));
  }
  if (!isWellEncodedPath(pathname)) {
    const problem = "the path is not well-formed percent-encoded UTF-8";
    if (api) return apiError(request.nextUrl, "BAD_REQUEST", problem);
    return new NextResponse(`Bad request: ${problem}\n`, {
      status: 400,
      headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
    });
  }
  return NextResponse.next();
}

export const config = {
  // Build assets stay public so the signed-out page can load its styles and scripts.
  matcher: ["/((?!_next/static/|_next/image).*)"],
};

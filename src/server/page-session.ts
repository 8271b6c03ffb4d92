/**
 * The session check for server-rendered pages: a page without a valid session cookie redirects
 * to /signed-out. The proxy checks first; this keeps pages safe if its matcher ever changes.
 */
import "server-only";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { hasValidSession, SESSION_COOKIE } from "./session";

/** Returns if the request has a valid session; otherwise redirects to /signed-out. */
export async function requirePageSession(): Promise<void> {
  const jar = await cookies();
  if (!hasValidSession(jar.get(SESSION_COOKIE)?.value)) redirect("/signed-out");
}

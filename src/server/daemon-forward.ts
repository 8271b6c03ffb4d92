/**
 * Forwards the browser's tRPC calls for one daemon to that daemon's owner API (SPEC §11). The
 * owner token is read from the configured file for each call and sent only upstream; it never
 * appears in a response, a URL or a log line. Query string and body pass through unchanged.
 */
import "server-only";
import { readFile } from "node:fs/promises";
import { apiError } from "./api-error";
import type { DaemonConfig } from "./env";

// How long the console waits for a daemon's answer.
const UPSTREAM_TIMEOUT_MS = 30_000;
// tRPC procedure paths, one or several joined by commas for a batch; never a path separator.
const PROCEDURES = /^[A-Za-z0-9_.-]+(?:,[A-Za-z0-9_.-]+)*$/;

async function readOwnerToken(daemon: DaemonConfig): Promise<string | undefined> {
  try {
    const token = (await readFile(daemon.ownerTokenFile, "utf8")).trim();
    return token === "" ? undefined : token;
  } catch {
    return undefined;
  }
}

/**
 * Sends `request` (GET or POST) to `<daemon url>/trpc/<procedures>` with the owner token and
 * returns the daemon's answer. Refusals by the daemon of the token itself, unreachable daemons
 * and timeouts become BAD_GATEWAY, so the browser can tell them from an expired session.
 */
export async function forwardToDaemon(request: Request, daemon: DaemonConfig, procedures: string): Promise<Response> {
  const url = new URL(request.url);
  if (!PROCEDURES.test(procedures)) return apiError(url, "NOT_FOUND", "no such procedure");
  const token = await readOwnerToken(daemon);
  if (token === undefined) {
    return apiError(url, "BAD_GATEWAY", `the owner token for daemon "${daemon.name}" could not be read`);
  }
  const headers = new Headers({ authorization: `Bearer ${token}`, accept: "application/json" });
  const contentType = request.headers.get("content-type");
  if (contentType !== null) headers.set("content-type", contentType);
  let upstream: Response;
  try {
    upstream = await fetch(`${daemon.url}/trpc/${procedures}${url.search}`, {
      method: request.method,
      headers,
      body: request.method === "POST" ? await request.text() : undefined,
      redirect: "manual",
      cache: "no-store",
      signal: AbortSignal.any([request.signal, AbortSignal.timeout(UPSTREAM_TIMEOUT_MS)]),
    });
  } catch {
    return apiError(url, "BAD_GATEWAY", `daemon "${daemon.name}" is unreachable`);
  }
  if (upstream.status === 401) {
    await upstream.body?.cancel();
    return apiError(url, "BAD_GATEWAY", `daemon "${daemon.name}" refused the console's owner token`);
  }
  return new Response(upstream.body, {
    status: upstream.status,
    headers: {
      "content-type": upstream.headers.get("content-type") ?? "application/json",
      "cache-control": "no-store",
    },
  });
}

/**
 * How a failed MCP request is classified: a ToolCallError saying how far a call got (what a send's
 * outcome-unknown and network-unavailable rest on), or the ConnectError of a failed connect. The
 * SDK's error classes and socket codes are read here and nowhere else.
 */
import { Data } from "effect";
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from "@modelcontextprotocol/client";
import { ConnectError } from "./errors.js";

// Socket errors raised before a connection existed: the daemon cannot have seen the request.
const NOT_CONNECTED_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * How far a failed tool call got:
 * - `refused`: the daemon answered with a JSON-RPC error (`code`, `data`);
 * - `unauthorized`: the daemon refused the token with HTTP 401 or 403 before dispatching;
 * - `unsent`: the request never reached the daemon (no connection, or the session is closed);
 * - `ambiguous`: it failed or timed out after it may have reached the daemon;
 * - `failed`: the tool ran and answered a result marked isError.
 */
export class ToolCallError extends Data.TaggedError("ToolCallError")<{
  readonly kind: "refused" | "unauthorized" | "unsent" | "ambiguous" | "failed";
  readonly detail: string;
  readonly code?: number;
  readonly data?: unknown;
  readonly cause?: unknown;
}> {}

function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current = error;
  while (current !== undefined && current !== null && chain.length < 8 && !chain.includes(current)) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

function neverConnected(error: unknown): boolean {
  return causeChain(error).some((link) => {
    const code = (link as { code?: unknown }).code;
    return typeof code === "string" && NOT_CONNECTED_CODES.has(code);
  });
}

function httpStatus(error: unknown): number | undefined {
  return error instanceof SdkHttpError ? error.status : undefined;
}

function describe(error: unknown): string {
  return causeChain(error)
    .map((link) => (link instanceof Error ? link.message : String(link)))
    .join(": ");
}

/** Classifies the failure of the MCP request `name`. */
export function toolCallErrorOf(name: string, error: unknown): ToolCallError {
  if (error instanceof ProtocolError) {
    return new ToolCallError({ kind: "refused", detail: error.message, code: error.code, data: error.data });
  }
  const status = httpStatus(error);
  if (status === 401 || status === 403) {
    return new ToolCallError({
      kind: "unauthorized",
      detail: `the daemon refused the runtime token (HTTP ${status})`,
      cause: error,
    });
  }
  if (neverConnected(error) || (error instanceof SdkError && error.code === SdkErrorCode.NotConnected)) {
    return new ToolCallError({
      kind: "unsent",
      detail: `${name} never reached the daemon: ${describe(error)}`,
      cause: error,
    });
  }
  const timedOut = error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
  return new ToolCallError({
    kind: "ambiguous",
    detail: `${name} ${timedOut ? "timed out" : "failed"} after it may have reached the daemon: ${describe(error)}`,
    cause: error,
  });
}

/** Classifies a failure to connect to the MCP endpoint at `url`. */
export function connectErrorOf(url: URL, error: unknown): ConnectError {
  const status = httpStatus(error);
  if (status === 401 || status === 403) {
    return new ConnectError({
      reason: "unauthorized",
      detail: `the daemon at ${url.href} refused the runtime token (HTTP ${status})`,
      cause: error,
    });
  }
  const unreachable =
    neverConnected(error) ||
    (status !== undefined && status >= 500) ||
    (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) ||
    causeChain(error).some((link) => link instanceof TypeError && link.message === "fetch failed");
  return new ConnectError({
    reason: unreachable ? "unreachable" : "incompatible",
    detail: `${unreachable ? "could not reach" : "could not use"} the MCP endpoint at ${url.href}: ${describe(error)}`,
    cause: error,
  });
}

/**
 * The MCP session with the daemon: one v2 SDK client over Streamable HTTP, authenticated with the
 * runtime bearer token, negotiating protocol 2026-07-28 or the legacy era, opened in a Scope and
 * closed with it. Each tool call ends in its structured result or one ToolCallError saying how far
 * the request got, which is what a send's outcome-unknown and network-unavailable rest on.
 */
import { Data, Effect, Redacted, Ref, type Scope } from "effect";
import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { ConnectError } from "./errors.js";

// The runtime tools the client calls (seed 000 "MCP Events and inbox", seed 001 "MCP adapter projection").
const REQUIRED_TOOLS = ["send_message", "read_inbox", "acknowledge_delivery"] as const;

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

/** An open MCP session with one daemon. */
export interface McpConnection {
  /** Calls a tool; succeeds with its structuredContent, which the caller validates. */
  readonly callTool: (
    name: string,
    args: Readonly<Record<string, unknown>>,
    meta?: Readonly<Record<string, unknown>>,
  ) => Effect.Effect<unknown, ToolCallError>;
}

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

function toolCallErrorOf(name: string, error: unknown): ToolCallError {
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

function connectErrorOf(url: URL, error: unknown): ConnectError {
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

function resultText(content: readonly { readonly type: string; readonly text?: unknown }[]): string {
  return content
    .map((block) => (typeof block.text === "string" ? block.text : `[${block.type}]`))
    .join(" ")
    .trim();
}

/**
 * Opens the MCP session at `url` with `token`, checks that the daemon serves the runtime tools,
 * and closes the session when the scope closes. `timeoutMs` bounds connecting and each call.
 */
export function openMcpConnection(
  url: URL,
  token: Redacted.Redacted<string>,
  timeoutMs: number,
): Effect.Effect<McpConnection, ConnectError, Scope.Scope> {
  return Effect.gen(function* () {
    const open = yield* Ref.make(true);
    const client = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async (signal) => {
          const client = new Client(
            { name: "@social-harness/client", version: "0.1.0" },
            { versionNegotiation: { mode: "auto" } },
          );
          const transport = new StreamableHTTPClientTransport(url, {
            requestInit: { headers: { Authorization: `Bearer ${Redacted.value(token)}` } },
          });
          await client.connect(transport, { signal, timeout: timeoutMs }).catch(async (error: unknown) => {
            await client.close().catch(() => undefined);
            throw error;
          });
          return client;
        },
        catch: (error) => connectErrorOf(url, error),
      }),
      (client) => Effect.zipRight(Ref.set(open, false), Effect.ignoreLogged(Effect.tryPromise(() => client.close()))),
    );
    const listed = yield* Effect.tryPromise({
      try: (signal) => client.listTools(undefined, { signal, timeout: timeoutMs }),
      catch: (error) => connectErrorOf(url, error),
    });
    const names = new Set(listed.tools.map((tool) => tool.name));
    const missing = REQUIRED_TOOLS.filter((name) => !names.has(name));
    if (missing.length > 0) {
      return yield* new ConnectError({
        reason: "incompatible",
        detail: `the MCP endpoint at ${url.href} does not serve ${missing.join(", ")}`,
      });
    }
    const callTool: McpConnection["callTool"] = (name, args, meta) =>
      Effect.gen(function* () {
        if (!(yield* Ref.get(open))) {
          return yield* new ToolCallError({
            kind: "unsent",
            detail: `${name} was not sent: the endpoint's scope is closed`,
          });
        }
        const result = yield* Effect.tryPromise({
          try: (signal) =>
            client.callTool(
              { name, arguments: { ...args }, ...(meta === undefined ? {} : { _meta: { ...meta } }) },
              { signal, timeout: timeoutMs },
            ),
          catch: (error) => toolCallErrorOf(name, error),
        });
        if (result.isError === true) {
          return yield* new ToolCallError({
            kind: "failed",
            detail: `${name} answered an error result: ${resultText(result.content)}`,
          });
        }
        return result.structuredContent;
      });
    return { callTool };
  });
}

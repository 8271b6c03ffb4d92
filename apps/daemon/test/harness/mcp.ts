/**
 * The official MCP client (SDK v2) against a real daemon, with helpers that return a tool's
 * structured result or its JSON-RPC error, so tests assert on exactly what a host sees.
 */
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

export type Era = "modern" | "legacy";

export interface Connected {
  readonly client: Client;
  close(): Promise<void>;
}

export async function connect(url: string, token: string, era: Era = "modern"): Promise<Connected> {
  const client = new Client(
    { name: "social-harness-tests", version: "1.0.0" },
    { versionNegotiation: { mode: era === "modern" ? { pin: "2026-07-28" } : "legacy" } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

export type ToolOutcome =
  { ok: true; result: Record<string, unknown> } | { ok: false; code: number; message: string; data: unknown };

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
  options?: { timeout?: number },
): Promise<ToolOutcome> {
  try {
    const result = await client.callTool(
      { name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) },
      options,
    );
    if (result.isError === true) throw new Error(`tool ${name} answered isError: ${JSON.stringify(result.content)}`);
    return { ok: true, result: (result.structuredContent ?? {}) as Record<string, unknown> };
  } catch (error) {
    if (error instanceof ProtocolError)
      return { ok: false, code: error.code, message: error.message, data: error.data };
    throw error;
  }
}

/** Calls a tool that must succeed and returns its structured result. */
export async function tool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
) {
  const outcome = await callTool(client, name, args, meta);
  if (!outcome.ok)
    throw new Error(`${name} failed: ${outcome.code} ${outcome.message} ${JSON.stringify(outcome.data)}`);
  return outcome.result;
}

/** Polls until `check` returns a value other than undefined (events, not fixed sleeps). */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 20_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

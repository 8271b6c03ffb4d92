/**
 * MCP over plain HTTP, for the few checks the official client hides: the status line, the modern
 * header ladder, `resultType`, and capability keys the v2 client strips (research/mcp-sdk-v2.md
 * §5, §7, §9). Answers are read whether they come as JSON or as SSE frames.
 */

export const MODERN_VERSION = "2026-07-28";

export interface RawAnswer {
  readonly status: number;
  readonly contentType: string;
  /** The JSON-RPC messages in the body: one for JSON, every `data:` frame for SSE. */
  readonly messages: Record<string, any>[];
  /** The last message that carries a result or an error (the response to the request). */
  readonly response: Record<string, any> | undefined;
}

/** The `_meta` envelope a modern request carries (SEP-2575). */
export function modernEnvelope(): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "raw-conformance", version: "1.0.0" },
  };
}

function parseBody(contentType: string, text: string): Record<string, any>[] {
  if (text.trim() === "") return [];
  if (contentType.includes("text/event-stream")) {
    return text
      .split(/\r?\n\r?\n/)
      .map((frame) =>
        frame
          .split(/\r?\n/)
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart())
          .join("\n"),
      )
      .filter((data) => data !== "")
      .map((data) => JSON.parse(data) as Record<string, any>);
  }
  return [JSON.parse(text) as Record<string, any>];
}

/** POSTs one body to an MCP endpoint and reads the whole answer. */
export async function postMcp(
  url: string,
  body: unknown,
  headers: Record<string, string | undefined> = {},
): Promise<RawAnswer> {
  const sent: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) delete sent[name.toLowerCase()];
    else sent[name.toLowerCase()] = value;
  }
  const response = await fetch(url, {
    method: "POST",
    headers: sent,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const contentType = response.headers.get("content-type") ?? "";
  const text = await response.text();
  let messages: Record<string, any>[];
  try {
    messages = parseBody(contentType, text);
  } catch {
    messages = [];
  }
  const answers = messages.filter((m) => "result" in m || "error" in m);
  return { status: response.status, contentType, messages, response: answers.at(-1) };
}

let nextId = 1;

/**
 * A modern-era request with the headers the 2026-07-28 ladder expects; `headers` overrides or
 * (with undefined) removes any of them.
 */
export function modernRequest(
  url: string,
  token: string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string | undefined> = {},
): Promise<RawAnswer> {
  const name = typeof params.name === "string" ? params.name : undefined;
  const meta = { ...modernEnvelope(), ...(params._meta as Record<string, unknown> | undefined) };
  return postMcp(
    url,
    { jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: meta } },
    {
      authorization: `Bearer ${token}`,
      "mcp-protocol-version": MODERN_VERSION,
      "mcp-method": method,
      ...(name === undefined ? {} : { "mcp-name": name }),
      ...headers,
    },
  );
}

/** A legacy-era (2025) request: no envelope, no modern headers; served statelessly. */
export function legacyRequest(
  url: string,
  token: string,
  method: string,
  params: Record<string, unknown> = {},
): Promise<RawAnswer> {
  return postMcp(url, { jsonrpc: "2.0", id: nextId++, method, params }, { authorization: `Bearer ${token}` });
}

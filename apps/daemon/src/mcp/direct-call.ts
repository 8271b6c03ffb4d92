/**
 * The direct path for the exchange hosts repeat most: a modern-era (2026-07-28) `tools/call` POST
 * with its standard headers, answered as one JSON body in exactly the envelope the SDK writes.
 * Only a request whose every field is one the SDK would dispatch unchanged takes it; anything
 * else (other methods, other eras, progress tokens, unknown fields or tools) goes to the SDK.
 */
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { jsonOf, type ToolCallOutcome } from "./tool-call.js";

export const MODERN_PROTOCOL = "2026-07-28";
const RESERVED = "io.modelcontextprotocol/";

export interface DirectCall {
  readonly id: string | number;
  readonly name: string;
  readonly args: unknown;
  /** The request's `_meta` without the reserved io.modelcontextprotocol/* keys, as the SDK hands it. */
  readonly meta: Record<string, unknown>;
}

const isPlain = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  Object.getPrototypeOf(value) === Object.prototype;

function onlyKeys(value: Record<string, unknown>, allowed: readonly string[]): boolean {
  for (const key in value) if (!allowed.includes(key)) return false;
  return true;
}

/** The call a request carries, when it may take the direct path. */
export function directCallOf(headers: IncomingHttpHeaders, body: unknown): DirectCall | undefined {
  if (headers["mcp-protocol-version"] !== MODERN_PROTOCOL || headers["mcp-method"] !== "tools/call") return undefined;
  if (headers["mcp-session-id"] !== undefined) return undefined;
  const accept = headers.accept;
  if (accept === undefined || !accept.includes("application/json") || !accept.includes("text/event-stream")) {
    return undefined;
  }
  for (const name in headers) if (name.startsWith("mcp-param-")) return undefined;
  if (!isPlain(body) || !onlyKeys(body, ["jsonrpc", "id", "method", "params"])) return undefined;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== "2.0" || method !== "tools/call") return undefined;
  if (!(typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)))) return undefined;
  if (!isPlain(params) || !onlyKeys(params, ["name", "arguments", "_meta"])) return undefined;
  const { name, arguments: args, _meta: meta } = params;
  if (typeof name !== "string" || headers["mcp-name"] !== name) return undefined;
  if (args !== undefined && !isPlain(args)) return undefined;
  if (!isPlain(meta) || meta[`${RESERVED}protocolVersion`] !== MODERN_PROTOCOL) return undefined;
  if (!isPlain(meta[`${RESERVED}clientCapabilities`])) return undefined;
  const toolMeta: Record<string, unknown> = {};
  for (const key in meta) {
    if (key === "progressToken") return undefined;
    if (key === `${RESERVED}clientInfo`) {
      if (!isPlain(meta[key])) return undefined;
      continue;
    }
    if (key.startsWith(RESERVED)) {
      if (key !== `${RESERVED}protocolVersion` && key !== `${RESERVED}clientCapabilities`) return undefined;
      continue;
    }
    toolMeta[key] = meta[key];
  }
  return { id, name, args, meta: toolMeta };
}

/** Writes the outcome as the SDK's modern envelope: result, resultType and serverInfo, or error. */
export function writeDirectAnswer(
  res: ServerResponse,
  id: string | number,
  outcome: ToolCallOutcome,
  serverMeta: string,
): void {
  let body: string;
  if (outcome.ok) {
    const text = jsonOf(outcome);
    body =
      `{"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text},` +
      `"resultType":"complete","_meta":${serverMeta}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
  } else {
    const error =
      outcome.data === undefined
        ? { code: outcome.code, message: outcome.message }
        : { code: outcome.code, message: outcome.message, data: outcome.data };
    body = JSON.stringify({ jsonrpc: "2.0", id, error });
  }
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
}

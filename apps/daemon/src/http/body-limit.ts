/**
 * The request-size guard of the daemon's HTTP front. A body declared larger than the endpoint
 * takes is answered 413 at once, and the connection is kept while the client finishes its
 * upload: closing under a client that is still sending makes its kernel see a reset (EPIPE,
 * ECONNRESET) before it reads the answer. The drain is bounded in bytes and time.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/** The MCP endpoint's body limit, the same as the MCP SDK's own default (4 MiB). */
export const MCP_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** How much of a refused body is read and discarded before the connection is dropped anyway. */
export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
export const DRAIN_MAX_MS = 10_000;

/** The body length a request declares, or undefined when it declares none (chunked). */
function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers["content-length"];
  if (header === undefined) return undefined;
  const length = Number(header);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

/** How long, and how much, a refused upload is read before its connection is dropped. */
export interface DrainLimits {
  readonly maxBytes: number;
  readonly maxMs: number;
}

const DRAIN: DrainLimits = { maxBytes: DRAIN_MAX_BYTES, maxMs: DRAIN_MAX_MS };

/**
 * Answers 413 with `body` now and ends the response only once the rest of the upload is read
 * (bounded by `drain`), so a client still sending reads the 413 instead of a reset. Works for a
 * request whose body was never read and for one read part-way (paused, or already ended).
 */
export function refuseUpload(
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
  drain: DrainLimits = DRAIN,
): void {
  res.writeHead(413, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    connection: "close",
  });
  res.write(body);
  if (req.readableEnded) {
    res.end();
    return;
  }
  let drained = 0;
  const drop = () => {
    clearTimeout(timer);
    req.socket.destroy();
  };
  const timer = setTimeout(drop, drain.maxMs);
  timer.unref();
  req.on("data", (chunk: Buffer) => {
    drained += chunk.byteLength;
    if (drained > drain.maxBytes) drop();
  });
  req.once("end", () => {
    clearTimeout(timer);
    res.end();
  });
  req.once("error", drop);
  req.resume();
}

/**
 * Answers 413 with `body` when the request declares more than `limit` bytes, and returns true;
 * returns false (touching nothing) otherwise.
 */
export function refuseOversizedBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  body: string,
  drain: DrainLimits = DRAIN,
): boolean {
  const declared = declaredLength(req);
  if (declared === undefined || declared <= limit) return false;
  refuseUpload(req, res, body, drain);
  return true;
}

/** The JSON-RPC error the MCP endpoint answers for an oversized body (the SDK's own wording). */
export const MCP_TOO_LARGE_BODY = JSON.stringify({
  jsonrpc: "2.0",
  error: { code: -32000, message: `Payload Too Large: Request body must not exceed ${MCP_MAX_BODY_BYTES} bytes` },
  id: null,
});

/**
 * The Node side of one MCP exchange, without the SDK's generic adapter: the body is read once
 * (bounded, 413 past 4 MiB like the SDK), parsed once and handed to the SDK as `parsedBody` on a
 * bodiless web Request; a JSON answer leaves in one write, an SSE answer streams with
 * backpressure, and a closed connection aborts the exchange (the SDK's disconnect signal).
 * The raw parse is kept for checks the SDK's own validation would make impossible (`__proto__`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";

export const MAX_REQUEST_BODY_BYTES = 4 * 1024 * 1024;

export type ReadBody =
  | { readonly kind: "json"; readonly value: unknown }
  /** Not parsed by us (not JSON, or not parseable): the SDK reads and answers it itself. */
  | { readonly kind: "raw"; readonly text: string | undefined }
  | { readonly kind: "too-large" };

function isJson(contentType: string | undefined): boolean {
  return contentType?.split(";")[0]?.trim().toLowerCase() === "application/json";
}

export async function readBody(req: IncomingMessage): Promise<ReadBody> {
  if (req.method !== "POST") return { kind: "raw", text: undefined };
  if (Number(req.headers["content-length"] ?? 0) > MAX_REQUEST_BODY_BYTES) return { kind: "too-large" };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > MAX_REQUEST_BODY_BYTES) return { kind: "too-large" };
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (!isJson(req.headers["content-type"])) return { kind: "raw", text };
  try {
    return { kind: "json", value: JSON.parse(text) as unknown };
  } catch {
    return { kind: "raw", text };
  }
}

/** A web Request with the Node request's method and headers, and the body only when unparsed. */
export function webRequestOf(req: IncomingMessage, body: string | undefined, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(":")) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  if (body === undefined) headers.delete("content-length");
  const method = req.method ?? "GET";
  return new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
    method,
    headers,
    signal,
    ...(body !== undefined && method !== "GET" && method !== "HEAD" ? { body } : {}),
  });
}

export function writeTooLarge(res: ServerResponse): void {
  const message = `Payload Too Large: Request body must not exceed ${MAX_REQUEST_BODY_BYTES} bytes`;
  res.writeHead(413, { "content-type": "application/json", connection: "close" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/** Writes the SDK's Response: a non-stream body in one write, an event stream as it comes. */
export async function writeResponse(res: ServerResponse, response: Response, closed: AbortSignal): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  const streaming = response.headers.get("content-type")?.startsWith("text/event-stream") === true;
  if (response.body === null || !streaming) {
    const body = response.body === null ? undefined : Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, headers).end(body);
    return;
  }
  res.writeHead(response.status, headers);
  res.flushHeaders();
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  closed.addEventListener("abort", stop, { once: true });
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done || closed.aborted) break;
      const value = chunk.value;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off("drain", go);
            closed.removeEventListener("abort", go);
            resolve();
          };
          res.on("drain", go);
          closed.addEventListener("abort", go, { once: true });
        });
      }
    }
  } catch {
    // The stream failed or was cancelled because the client went away; nothing more to send.
  } finally {
    closed.removeEventListener("abort", stop);
    res.end();
  }
}

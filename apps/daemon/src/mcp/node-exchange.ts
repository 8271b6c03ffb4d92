/**
 * The Node side of one MCP exchange, without the SDK's generic adapter: the body is read once
 * (bounded, 413 past 4 MiB like the SDK), parsed once and handed to the SDK as `parsedBody` on a
 * bodiless web Request; a JSON answer leaves in one write, an SSE answer streams with
 * backpressure, and a closed connection aborts the exchange (the SDK's disconnect signal).
 * The raw parse is kept for checks the SDK's own validation would make impossible (`__proto__`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { MCP_MAX_BODY_BYTES, MCP_TOO_LARGE_BODY, refuseUpload } from "../http/body-limit.js";

export type ReadBody =
  | { readonly kind: "json"; readonly value: unknown }
  /** Not parsed by us (not JSON, or not parseable): the SDK reads and answers it itself. */
  | { readonly kind: "raw"; readonly text: string | undefined }
  | { readonly kind: "too-large" };

function isJson(contentType: string | undefined): boolean {
  return contentType?.split(";")[0]?.trim().toLowerCase() === "application/json";
}

/**
 * Reads a POST body up to the limit. Past it, reading stops with the request paused, not
 * destroyed: the caller answers 413 and drains the rest (refuseUpload), since destroying a
 * request whose client is still sending resets the connection before the answer is read. A body
 * declared too large never gets here: the HTTP front refuses it (refuseOversizedBody).
 */
export function readBody(req: IncomingMessage): Promise<ReadBody> {
  if (req.method !== "POST") return Promise.resolve({ kind: "raw", text: undefined });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size <= MCP_MAX_BODY_BYTES) {
        chunks.push(chunk);
        return;
      }
      req.pause();
      stop();
      resolve({ kind: "too-large" });
    };
    const onEnd = () => {
      stop();
      resolve(parsed(req, Buffer.concat(chunks).toString("utf8")));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    req.on("data", onData);
    req.once("end", onEnd);
    req.once("error", onError);
  });
}

function parsed(req: IncomingMessage, text: string): ReadBody {
  if (!isJson(req.headers["content-type"])) return { kind: "raw", text };
  try {
    return { kind: "json", value: JSON.parse(text) as unknown };
  } catch {
    return { kind: "raw", text };
  }
}

/**
 * Aborts when the client goes away before its answer is written. The AbortController is made on
 * the first read of `signal`: the direct path's tools rarely read it, and a controller with its
 * signal costs each request a fresh hidden class in V8 (about 1% of a send's CPU).
 */
export class ClientGone {
  private controller: AbortController | undefined;
  private gone = false;

  constructor(res: ServerResponse) {
    res.on("close", () => {
      if (res.writableFinished) return;
      this.gone = true;
      this.controller?.abort();
    });
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.gone) this.controller.abort();
    }
    return this.controller.signal;
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

/** Answers 413 with the SDK's JSON-RPC body, and drains the rest of the upload before closing. */
export function writeTooLarge(req: IncomingMessage, res: ServerResponse): void {
  refuseUpload(req, res, MCP_TOO_LARGE_BODY);
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

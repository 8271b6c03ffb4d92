/**
 * A real webhook receiver for tests: HTTPS on loopback with the test CA's certificate (or plain
 * HTTP), that records every request as it arrived, verifies each with the `standardwebhooks`
 * package as an independent verifier, answers verification challenges, and plays scripted faults
 * (status codes, delays, hangs, slow bodies, redirects).
 */
import { randomBytes } from "node:crypto";
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { Webhook } from "standardwebhooks";
import { eventually } from "../harness/mcp.js";
import type { TestCa } from "./tls.js";

export interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly raw: Buffer;
  readonly body: any;
  readonly at: number;
  /** The TLS server name the client sent (undefined over plain HTTP). */
  readonly servername: string | undefined;
  /** The secret whose signature verified, or undefined when none did. */
  readonly verifiedWith: string | undefined;
  readonly isChallenge: boolean;
}

export interface Reply {
  readonly status?: number;
  readonly body?: string;
  readonly headers?: Record<string, string>;
  /** Wait this long before answering. */
  readonly delayMs?: number;
  /** Never answer. */
  readonly hang?: boolean;
  /** Close the connection at once without answering (a reset the client sees on its next read). */
  readonly reset?: boolean;
  /** Send the status line at once, then the body one byte every this many ms. */
  readonly trickleMs?: number;
}

export type Responder = (request: Received) => Reply | Promise<Reply>;

/** Answers a challenge correctly and any delivery with 200. */
export const accept: Responder = (request) =>
  request.isChallenge ? { status: 200, body: JSON.stringify({ challenge: request.body.challenge }) } : { status: 200 };

export function newSecret(bytes = 32): string {
  return `whsec_${randomBytes(bytes).toString("base64")}`;
}

export class WebhookReceiver {
  readonly requests: Received[] = [];
  /** Secrets the receiver was given, newest last; every request is verified against them. */
  readonly secrets: string[] = [];
  respond: Responder = accept;
  /** TCP connections accepted since the last reset. */
  connections = 0;
  /** TCP connections closed since the last reset. */
  closedConnections = 0;

  private constructor(
    private readonly server: http.Server | https.Server,
    readonly port: number,
    readonly scheme: "https" | "http",
  ) {
    server.on("connection", (socket: Socket) => {
      this.connections++;
      socket.once("close", () => this.closedConnections++);
    });
  }

  static async start(options: { tls?: TestCa; untrusted?: boolean } = {}): Promise<WebhookReceiver> {
    const holder: { receiver?: WebhookReceiver } = {};
    const handler = (req: IncomingMessage, res: ServerResponse) => void holder.receiver!.handle(req, res);
    const server =
      options.tls === undefined
        ? http.createServer(handler)
        : https.createServer(options.untrusted === true ? options.tls.untrusted : options.tls, handler);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    holder.receiver = new WebhookReceiver(server, port, options.tls === undefined ? "http" : "https");
    return holder.receiver;
  }

  /** The callback URL on this receiver (host "localhost" exercises DNS, Host and SNI). */
  url(path = "/hook", host = "localhost"): string {
    return `${this.scheme}://${host}:${this.port}${path}`;
  }

  /** A fresh secret this receiver will verify with. */
  secret(bytes?: number): string {
    const secret = newSecret(bytes);
    this.secrets.push(secret);
    return secret;
  }

  challenges(): Received[] {
    return this.requests.filter((r) => r.isChallenge);
  }

  deliveries(): Received[] {
    return this.requests.filter((r) => !r.isChallenge);
  }

  /** Waits until at least `count` deliveries arrived, and returns them. */
  waitForDeliveries(count: number, timeoutMs = 20_000): Promise<Received[]> {
    return eventually(
      async () => (this.deliveries().length >= count ? this.deliveries() : undefined),
      timeoutMs,
      `${count} deliveries (have ${this.deliveries().length})`,
    );
  }

  reset(): void {
    this.requests.length = 0;
    this.respond = accept;
    this.connections = 0;
    this.closedConnections = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private verify(raw: Buffer, headers: IncomingHttpHeaders): string | undefined {
    const wanted = {
      "webhook-id": String(headers["webhook-id"] ?? ""),
      "webhook-timestamp": String(headers["webhook-timestamp"] ?? ""),
      "webhook-signature": String(headers["webhook-signature"] ?? ""),
    };
    for (const secret of [...this.secrets].reverse()) {
      try {
        new Webhook(secret).verify(raw.toString("utf8"), wanted);
        return secret;
      } catch {
        // Not this secret.
      }
    }
    return undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    let body: any;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      body = undefined;
    }
    const received: Received = {
      path: req.url ?? "",
      headers: req.headers,
      raw,
      body,
      at: Date.now(),
      servername: (req.socket as TLSSocket).servername || undefined,
      verifiedWith: this.verify(raw, req.headers),
      isChallenge: body?.type === "verification",
    };
    this.requests.push(received);
    const reply = await this.respond(received);
    if (reply.hang === true) return;
    if (reply.reset === true) {
      req.socket.resetAndDestroy();
      return;
    }
    if (reply.delayMs !== undefined) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (res.destroyed) return;
    const text = reply.body ?? "";
    res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
    if (reply.trickleMs === undefined) {
      res.end(text);
      return;
    }
    res.flushHeaders();
    for (const byte of Buffer.from(text)) {
      if (res.destroyed) return;
      res.write(Buffer.from([byte]));
      await new Promise((r) => setTimeout(r, reply.trickleMs));
    }
    res.end();
  }
}

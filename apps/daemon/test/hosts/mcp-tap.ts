/**
 * A loopback HTTP proxy between a host adapter and its real daemon's `/mcp`: it forwards every
 * request unchanged, records each delivery the daemon hands out (token and item bytes, as
 * `read_inbox` answered them) and each acknowledgment, and can lose one acknowledgment: the
 * request is never forwarded and its connection is reset, as when a network drops it.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface TappedDelivery {
  readonly deliveryToken: string;
  /** The item exactly as the daemon serialised it in this read. */
  readonly bytes: string;
}

function jsonRpcOf(body: string, contentType: string | undefined): unknown {
  if (contentType?.includes("text/event-stream") === true) {
    const data = body
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trim())
      .find((line) => line.startsWith("{"));
    return data === undefined ? undefined : JSON.parse(data);
  }
  return body.startsWith("{") ? JSON.parse(body) : undefined;
}

export class McpTap {
  /** Every delivery read_inbox handed out, in order, once per read. */
  readonly reads: TappedDelivery[] = [];
  /** Every acknowledgment the daemon received, in order. */
  readonly acks: string[] = [];
  /** Acknowledgments lost on the way, in order. */
  readonly lostAcks: string[] = [];
  private losing = 0;
  private server: http.Server | undefined;
  private port = 0;

  private constructor(private readonly upstream: URL) {}

  static async start(upstream: string): Promise<McpTap> {
    const tap = new McpTap(new URL(upstream));
    tap.server = http.createServer((req, res) => void tap.forward(req, res));
    await new Promise<void>((resolve) => tap.server!.listen(0, "127.0.0.1", resolve));
    tap.port = (tap.server.address() as AddressInfo).port;
    return tap;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}${this.upstream.pathname}`;
  }

  /** Loses the next `count` acknowledgments. */
  loseAcks(count = 1): void {
    this.losing += count;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    let call: { method?: string; params?: { name?: string; arguments?: { deliveryToken?: string } } } = {};
    try {
      call = body.length > 0 ? (JSON.parse(body.toString("utf8")) as typeof call) : {};
    } catch {
      // Not JSON-RPC: forwarded as it is.
    }
    const tool = call.method === "tools/call" ? call.params?.name : undefined;
    if (tool === "acknowledge_delivery" && this.losing > 0) {
      this.losing -= 1;
      this.lostAcks.push(call.params?.arguments?.deliveryToken ?? "");
      req.socket.destroy();
      return;
    }
    const upstream = http.request(
      {
        host: this.upstream.hostname,
        port: this.upstream.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: this.upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (tool === undefined) {
          answer.pipe(res);
          return;
        }
        const parts: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => parts.push(chunk));
        answer.on("end", () => {
          const text = Buffer.concat(parts).toString("utf8");
          this.record(tool, call.params?.arguments?.deliveryToken, jsonRpcOf(text, answer.headers["content-type"]));
          res.end(text);
        });
      },
    );
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
    upstream.end(body);
  }

  private record(tool: string, token: string | undefined, message: unknown): void {
    const result = (message as { result?: { structuredContent?: unknown } } | undefined)?.result?.structuredContent;
    if (result === undefined) return;
    if (tool === "acknowledge_delivery" && token !== undefined) this.acks.push(token);
    if (tool === "read_inbox") {
      for (const entry of (result as { items?: { deliveryToken: string; item: unknown }[] }).items ?? []) {
        this.reads.push({ deliveryToken: entry.deliveryToken, bytes: JSON.stringify(entry.item) });
      }
    }
  }
}

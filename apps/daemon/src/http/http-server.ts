/**
 * The daemon's one HTTP server: /mcp for hosts, /trpc/ for the owner API, /healthz for probes,
 * /metrics (Prometheus text, owner token) for operators.
 * Routing, and a size guard for MCP bodies; each endpoint authenticates its own requests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Logger } from "pino";
import { MCP_MAX_BODY_BYTES, MCP_TOO_LARGE_BODY, refuseOversizedBody } from "./body-limit.js";

export interface HttpEndpoints {
  mcp(req: IncomingMessage, res: ServerResponse): Promise<void>;
  trpc(req: IncomingMessage, res: ServerResponse): void;
  health(): Record<string, unknown>;
  metrics(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/**
 * How long an idle kept-alive connection stays open. Longer than the clients' own idle timeouts
 * (undici's is 4 s), so a client never reuses a connection the daemon is closing at that moment:
 * such a request would fail after it may have reached the daemon (an outcome-unknown send).
 */
const KEEP_ALIVE_MS = 65_000;

export function createHttpServer(endpoints: HttpEndpoints, log: Logger): Server {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? "/";
    if (url === "/mcp" || url.startsWith("/mcp?")) {
      if (refuseOversizedBody(req, res, MCP_MAX_BODY_BYTES, MCP_TOO_LARGE_BODY)) return;
      endpoints.mcp(req, res).catch((error: unknown) => {
        log.error({ err: error }, "mcp request failed");
        if (!res.headersSent) res.writeHead(500).end();
      });
      return;
    }
    if (url.startsWith("/trpc/")) return endpoints.trpc(req, res);
    if (url === "/metrics") {
      endpoints.metrics(req, res).catch((error: unknown) => {
        log.error({ err: error }, "metrics scrape failed");
        if (!res.headersSent) res.writeHead(500).end();
      });
      return;
    }
    if (url === "/healthz") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(endpoints.health()));
      return;
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
  });
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  return server;
}

/** Listens and resolves with the base URL (port 0 picks a free port). */
export async function listen(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === "object" && address !== null ? address.port : port;
  return `http://${host.includes(":") ? `[${host}]` : host}:${bound}`;
}

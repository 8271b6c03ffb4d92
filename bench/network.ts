/**
 * Benchmark fixtures: a router and daemons as real processes (the built command line), and MCP
 * clients on their runtime tokens. Nothing here is mocked; the numbers include every hop.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { spawnServer, type ServerProcess } from "@social-harness/cli";

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../packages/cli/bin/social-harness.js");

export interface Daemon {
  readonly name: string;
  readonly mcp: string;
  readonly data: string;
  readonly process: ServerProcess;
  token(): string;
}

export class BenchNetwork {
  readonly root = mkdtempSync(path.join(tmpdir(), "sh-bench-"));
  private readonly processes: ServerProcess[] = [];
  routerUrl = "";

  async startRouter(): Promise<void> {
    const router = spawnServer(
      process.execPath,
      [CLI, "router", "--data", path.join(this.root, "router"), "--listen", "127.0.0.1:0"],
      {
        env: { LOG_LEVEL: "warn" },
      },
    );
    this.processes.push(router);
    this.routerUrl = (await router.ready).router as string;
  }

  async startDaemon(name: string, extra: string[] = []): Promise<Daemon> {
    const data = path.join(this.root, name);
    const server = spawnServer(
      process.execPath,
      [CLI, "daemon", "--name", name, "--router", this.routerUrl, "--data", data, "--listen", "127.0.0.1:0", ...extra],
      { env: { LOG_LEVEL: "warn" } },
    );
    this.processes.push(server);
    const line = await server.ready;
    return {
      name,
      mcp: line.mcp as string,
      data,
      process: server,
      token: () => readFileSync(path.join(data, "runtime.token"), "utf8").trim(),
    };
  }

  async stop(server: ServerProcess): Promise<void> {
    await server.stop();
    this.processes.splice(this.processes.indexOf(server), 1);
  }

  async close(): Promise<void> {
    for (const server of this.processes.reverse()) await server.stop();
    rmSync(this.root, { recursive: true, force: true });
  }
}

export async function mcpClient(daemon: Daemon): Promise<Client> {
  const client = new Client(
    { name: "social-harness-bench", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(daemon.mcp), {
      requestInit: { headers: { Authorization: `Bearer ${daemon.token()}` } },
    }),
  );
  return client;
}

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

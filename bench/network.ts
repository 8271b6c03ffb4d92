/**
 * Benchmark fixtures: a router and daemons as real processes (the built command line), and MCP
 * clients on their runtime tokens. Nothing here is mocked; the numbers include every hop.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { spawnServer, type ServerProcess } from "@social-harness/cli";
import type { MeasuredRouter } from "./router-certify.js";

/** BENCH_CLI=<path to social-harness.js> runs another build's servers (before/after comparisons). */
export const CLI =
  process.env.BENCH_CLI ??
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../apps/cli/bin/social-harness.js");

/**
 * BENCH_PROFILE=<dir> writes a CPU profile of every server process into <dir> when it stops;
 * BENCH_PROFILE_INTERVAL=<µs> samples more often than V8's default 1,000 µs. BENCH_NODE_ARGS adds
 * node options to every server process (e.g. V8 flags NODE_OPTIONS refuses), for experiments.
 */
const PROFILE = process.env.BENCH_PROFILE;
const INTERVAL = process.env.BENCH_PROFILE_INTERVAL;
const NODE_ARGS = [
  ...(process.env.BENCH_NODE_ARGS?.split(" ").filter((a) => a !== "") ?? []),
  ...(PROFILE === undefined
    ? []
    : [
        "--cpu-prof",
        `--cpu-prof-dir=${PROFILE}`,
        ...(INTERVAL === undefined ? [] : [`--cpu-prof-interval=${INTERVAL}`]),
      ]),
];

/**
 * Calls before a figure or its anchor is measured, so both are V8's steady state. A process tiers
 * its hot code up over its first few thousand operations, not its first few hundred: measured on
 * 2026-12-04, a fetch client's p50 against a trivial server fell 0.78 → 0.34 ms from its 50th to its
 * 3,000th call, read_inbox's 1.79 → 1.08 ms over 2,000 reads, a sequential send's 5.2 → 3.6 ms over
 * 3,000 sends, and the CPU of a direct post 3.7 → 1.9 ms over 5,000 posts, the bench's own client
 * (unchanged code) falling with it (docs/decisions.md "The bench warms up for thousands of calls").
 */
export const WARMUP_CALLS = 3000;
/** Posts before the cpu section (and its skeleton) measures: a post crosses three processes' code. */
export const WARMUP_POSTS = 5000;

export interface Daemon {
  readonly name: string;
  readonly mcp: string;
  readonly data: string;
  readonly process: ServerProcess;
  token(): string;
}

/** What every server process of a network gets: extra environment, and a command to run node under. */
export interface NetworkOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** e.g. ["valgrind", "--tool=callgrind"]: node runs as the last argument of this command. */
  readonly wrap?: readonly string[];
}

export class BenchNetwork {
  readonly root = mkdtempSync(path.join(tmpdir(), "sh-bench-"));
  private readonly processes: ServerProcess[] = [];
  routerUrl = "";
  routerProcess: ServerProcess | undefined;
  /** The network's router's /metrics (Prometheus). */
  routerMetricsUrl: string | undefined;

  constructor(private readonly options: NetworkOptions = {}) {}

  private spawn(args: string[], env: NodeJS.ProcessEnv): ServerProcess {
    const wrap = this.options.wrap ?? [];
    const [command, ...prefix] = wrap.length === 0 ? [process.execPath] : [...wrap, process.execPath];
    return spawnServer(command, [...prefix, ...NODE_ARGS, CLI, ...args], {
      env: { LOG_LEVEL: "warn", ...this.options.env, ...env },
    });
  }

  /** Starts the network's router (SQLite, or the PostgreSQL URL given). */
  async startRouter(database?: string): Promise<void> {
    const router = await this.startExtraRouter("router", database);
    this.routerUrl = router.url;
    this.routerProcess = router.process;
    this.routerMetricsUrl = router.metricsUrl;
  }

  /** The network's router as the router section measures it: its URL, its pid and its /metrics. */
  router(): MeasuredRouter {
    if (this.routerProcess === undefined) throw new Error("the bench network has no router");
    return measuredRouter({ url: this.routerUrl, process: this.routerProcess, metricsUrl: this.routerMetricsUrl });
  }

  /** Starts a router of its own, e.g. to measure PostgreSQL beside SQLite. */
  async startExtraRouter(
    name: string,
    database?: string,
  ): Promise<{ url: string; process: ServerProcess; metricsUrl?: string }> {
    const router = this.spawn(
      [
        "router",
        "--data",
        path.join(this.root, name),
        "--listen",
        "127.0.0.1:0",
        "--metrics-listen",
        "127.0.0.1:0",
        ...(database === undefined ? [] : ["--database", database]),
      ],
      {},
    );
    this.processes.push(router);
    const ready = await router.ready;
    const metricsUrl = typeof ready.metrics === "string" ? ready.metrics : undefined;
    return { url: ready.router as string, process: router, ...(metricsUrl === undefined ? {} : { metricsUrl }) };
  }

  async startDaemon(name: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Daemon> {
    const data = path.join(this.root, name);
    // Under a wrapper (callgrind runs every process some fifty times slower) the router's answers
    // take longer than a daemon's default 15 s wait on a slow VM, and a post would be left pending.
    const patience = this.options.wrap === undefined ? [] : ["--router-timeout-ms", "600000"];
    const server = this.spawn(
      [
        "daemon",
        "--name",
        name,
        "--router",
        this.routerUrl,
        "--data",
        data,
        "--listen",
        "127.0.0.1:0",
        ...patience,
        ...extra,
      ],
      env,
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

/** A started router as the router section measures it: its URL, its pid and its /metrics if served. */
export function measuredRouter(router: {
  readonly url: string;
  readonly process: ServerProcess;
  readonly metricsUrl?: string | undefined;
}): MeasuredRouter {
  const pid = router.process.child.pid;
  if (pid === undefined) throw new Error("the router process has no pid");
  return { url: router.url, pid, ...(router.metricsUrl === undefined ? {} : { metricsUrl: router.metricsUrl }) };
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

/** A modern-era tools/call with plain fetch, as a host without an MCP library would send it. */
export async function rawToolCall(
  daemon: Daemon,
  name: string,
  args: Record<string, unknown>,
  token = daemon.token(),
): Promise<Record<string, unknown>> {
  const response = await rawToolResponse(daemon, name, args, token);
  return structuredContentOf(name, await response.json());
}

/** A tools/call answer's structured content, or the error it carried. */
function structuredContentOf(name: string, answer: unknown): Record<string, unknown> {
  const { result, error } = answer as { result?: { structuredContent?: Record<string, unknown> }; error?: unknown };
  if (result?.structuredContent === undefined) throw new Error(`${name} failed: ${JSON.stringify(error)}`);
  return result.structuredContent;
}

/** The HTTP response of one modern-era tools/call, its body unread. */
export function rawToolResponse(
  daemon: Daemon,
  name: string,
  args: Record<string, unknown>,
  token = daemon.token(),
): Promise<Response> {
  const { headers, body } = toolCallRequest(token, name, args);
  return fetch(daemon.mcp, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body });
}

/** The headers (content-type aside) and body of one modern-era tools/call. */
function toolCallRequest(
  token: string,
  name: string,
  args: Record<string, unknown>,
): { headers: Record<string, string>; body: string } {
  return {
    headers: {
      authorization: `Bearer ${token}`,
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name,
        arguments: args,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  };
}

/**
 * The throughput loads' client: one JSON POST on node:http over kept connections, its answer read
 * whole and parsed. A load generator shares the servers' two cores, and fetch costs 0.37-0.49 ms
 * of CPU a request here against 0.14 ms for node:http (docs/decisions.md); the requests, headers
 * and bodies are the same, so the servers' work is too.
 */
const keptConnections = new Agent({ keepAlive: true, maxSockets: 64 });

export function postJson(url: string, headers: Readonly<Record<string, string>>, body: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        agent: keptConnections,
        headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
          } catch (error) {
            reject(new Error(`HTTP ${res.statusCode}: the answer is not JSON`, { cause: error }));
          }
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** rawToolCall on the throughput loads' client (postJson). */
export async function leanToolCall(
  daemon: Daemon,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const { headers, body } = toolCallRequest(daemon.token(), name, args);
  return structuredContentOf(name, await postJson(daemon.mcp, headers, body));
}

/** The resident set of a process, from /proc (Linux). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kb === undefined ? Number.NaN : Number(kb) * 1024;
}

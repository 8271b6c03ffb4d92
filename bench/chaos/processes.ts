/**
 * Routers and daemons as real processes, started through the real command line
 * (`apps/cli/bin/social-harness.js`) with their stderr in log files. Each keeps its data
 * directory and port, so `kill()` (SIGKILL, no cleanup of any kind) followed by `start()` is a crash
 * and a restart with the same data. An exit nobody asked for is reported, never hidden.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { spawnServer, type ServerProcess } from "@social-harness/cli";

export const CLI = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  // Run from sources (vitest) or from bench/dist/chaos (npm run chaos).
  fileURLToPath(import.meta.url).includes(`${path.sep}dist${path.sep}`) ? "../../.." : "../..",
  "apps/cli/bin/social-harness.js",
);

export interface ServerSpec {
  readonly name: string;
  /** The command line after `social-harness`, without `--listen`. */
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly logFile: string;
}

export class Server {
  private proc: ServerProcess | undefined;
  private port = 0;
  private expectExit = false;
  /** The parsed ready line of the current run. */
  ready: Record<string, unknown> = {};
  /** Called when the process exits without being told to. */
  onUnexpectedExit: (server: Server, code: number | null) => void = () => {};

  constructor(readonly spec: ServerSpec) {}

  get name(): string {
    return this.spec.name;
  }

  get running(): boolean {
    return this.proc !== undefined;
  }

  /** Starts the process (on the port of its first run) and waits for its ready line. */
  async start(): Promise<void> {
    if (this.proc !== undefined) throw new Error(`${this.name} is already running`);
    const args = [CLI, ...this.spec.args, "--listen", `127.0.0.1:${this.port}`];
    const proc = spawnServer(process.execPath, args, {
      env: { LOG_LEVEL: "warn", ...this.spec.env },
      logFile: this.spec.logFile,
    });
    this.proc = proc;
    this.expectExit = false;
    void proc.exited.then((code) => {
      if (this.proc !== proc) return;
      this.proc = undefined;
      if (!this.expectExit) this.onUnexpectedExit(this, code);
    });
    this.ready = await proc.ready;
    const url = (this.ready.mcp ?? this.ready.router) as string;
    this.port = Number(new URL(url).port);
  }

  /** kill -9: the process gets no chance to flush, close or say goodbye. */
  async kill(): Promise<void> {
    await this.end("SIGKILL");
  }

  /** A clean stop (SIGTERM), as at the end of a trial; false if it had to be killed after `graceMs`. */
  async stop(graceMs = 15_000): Promise<boolean> {
    const proc = this.proc;
    if (proc === undefined) return true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), graceMs)));
    const ended = await Promise.race([this.end("SIGTERM"), late]);
    clearTimeout(timer);
    if (ended !== "late") return true;
    proc.child.kill("SIGKILL");
    await proc.exited;
    return false;
  }

  private async end(signal: NodeJS.Signals): Promise<void> {
    const proc = this.proc;
    if (proc === undefined) return;
    this.expectExit = true;
    this.proc = undefined;
    await proc.stop(signal);
  }
}

export class RouterServer extends Server {
  get url(): string {
    return this.ready.router as string;
  }
}

export class DaemonServer extends Server {
  constructor(
    spec: ServerSpec,
    readonly dataDir: string,
  ) {
    super(spec);
  }

  get mcpUrl(): string {
    return this.ready.mcp as string;
  }

  /** The owner API (tRPC), for kinds that check what the owner sees (holds, subscriptions). */
  get trpcUrl(): string {
    return this.ready.trpc as string;
  }

  get runtimeToken(): string {
    return readFileSync(path.join(this.dataDir, "runtime.token"), "utf8").trim();
  }

  get ownerToken(): string {
    return readFileSync(path.join(this.dataDir, "owner.token"), "utf8").trim();
  }

  /** Waits until the router link is up (the ready line comes before the link). */
  async linked(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const health = this.mcpUrl.replace(/\/mcp$/, "/healthz");
    for (;;) {
      const state = await fetch(health)
        .then((r) => r.json() as Promise<{ link?: string }>)
        .then((body) => body.link)
        .catch(() => undefined);
      if (state === "ready") return;
      if (Date.now() > deadline) throw new Error(`${this.name} did not link to its router (link ${state})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

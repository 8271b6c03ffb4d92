/**
 * Real processes for system tests: routers and daemons started through the command line, exactly
 * as a user runs them, each with its own data directory and captured stderr.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { spawnServer, type ServerProcess } from "@social-harness/cli";

export const CLI = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../../apps/cli/bin/social-harness.js",
);

export type Proc = ServerProcess;

function run(args: string[], env: NodeJS.ProcessEnv = {}): { proc: Proc; ready: Promise<Record<string, unknown>> } {
  const proc = spawnServer(process.execPath, [CLI, ...args], {
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? "debug", ...env },
  });
  return { proc, ready: proc.ready };
}

export function stopProcess(proc: Proc, signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
  return proc.stop(signal);
}

export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), `sh-${prefix}-`));
}

export class RouterProcess {
  private constructor(
    readonly proc: Proc,
    readonly url: string,
    readonly dataDir: string,
    readonly args: string[],
    /** The ed25519 implementation it signs and verifies with (its ready line). */
    readonly ed25519: string,
    /** The router's /metrics URL, when it was started with --metrics-listen. */
    readonly metricsUrl?: string,
  ) {}

  static async start(
    options: {
      dataDir?: string;
      database?: string;
      listen?: string;
      extraArgs?: readonly string[];
      env?: NodeJS.ProcessEnv;
    } = {},
  ): Promise<RouterProcess> {
    const dataDir = options.dataDir ?? tempDir("router");
    const args = ["router", "--data", dataDir, "--listen", options.listen ?? "127.0.0.1:0"];
    if (options.database !== undefined) args.push("--database", options.database);
    args.push(...(options.extraArgs ?? []));
    const { proc, ready } = run(args, options.env);
    const line = await ready;
    return new RouterProcess(
      proc,
      line.router as string,
      dataDir,
      args,
      line.ed25519 as string,
      line.metrics as string | undefined,
    );
  }

  /** Starts a router again on the same data directory and address. */
  async restart(): Promise<RouterProcess> {
    await this.stop();
    const port = new URL(this.url).port;
    const args = [...this.args];
    args[args.indexOf("--listen") + 1] = `127.0.0.1:${port}`;
    const { proc, ready } = run(args);
    const line = await ready;
    return new RouterProcess(proc, line.router as string, this.dataDir, args, line.ed25519 as string);
  }

  stop(signal?: NodeJS.Signals): Promise<number | null> {
    return stopProcess(this.proc, signal);
  }
}

export interface DaemonOptions {
  readonly name: string;
  readonly router: string;
  readonly dataDir?: string;
  readonly trust?: "open" | "allowlist";
  readonly listen?: string;
  readonly extraArgs?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
}

export class DaemonProcess {
  private constructor(
    readonly proc: Proc,
    readonly name: string,
    readonly mcpUrl: string,
    readonly trpcUrl: string,
    readonly dataDir: string,
    readonly options: DaemonOptions,
    /** The ed25519 implementation it signs and verifies with (its ready line). */
    readonly ed25519: string,
  ) {}

  static async start(options: DaemonOptions): Promise<DaemonProcess> {
    const dataDir = options.dataDir ?? tempDir(options.name);
    const args = [
      "daemon",
      "--name",
      options.name,
      "--router",
      options.router,
      "--data",
      dataDir,
      "--listen",
      options.listen ?? "127.0.0.1:0",
    ];
    if (options.trust !== undefined) args.push("--trust", options.trust);
    args.push(...(options.extraArgs ?? []));
    const { proc, ready } = run(args, options.env);
    const line = await ready;
    return new DaemonProcess(
      proc,
      options.name,
      line.mcp as string,
      line.trpc as string,
      dataDir,
      { ...options, dataDir },
      line.ed25519 as string,
    );
  }

  /** Waits until the daemon's router link is up (its ready line comes before the link does). */
  async linked(timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const url = this.mcpUrl.replace(/\/mcp$/, "/healthz");
    for (;;) {
      const health = (await fetch(url).then((r) => r.json())) as { link?: string };
      if (health.link === "ready") return;
      if (Date.now() > deadline) throw new Error(`${this.name} did not link to its router (link ${health.link})`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  get runtimeToken(): string {
    return readFileSync(path.join(this.dataDir, "runtime.token"), "utf8").trim();
  }

  get ownerToken(): string {
    return readFileSync(path.join(this.dataDir, "owner.token"), "utf8").trim();
  }

  /** Stops this daemon and starts it again on the same data directory (and port, unless given). */
  async restart(overrides: Partial<DaemonOptions> = {}): Promise<DaemonProcess> {
    await this.stop();
    return DaemonProcess.start({ ...this.options, listen: `127.0.0.1:${new URL(this.mcpUrl).port}`, ...overrides });
  }

  stop(signal?: NodeJS.Signals): Promise<number | null> {
    return stopProcess(this.proc, signal);
  }

  stderr(): string {
    return this.proc.stderr();
  }
}

/** Runs a one-shot command of the command line (`router token create`, `identity`, `history ...`). */
export function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env: { ...process.env, ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Removes the directories tests created. */
export function removeDirs(...dirs: string[]): void {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

/**
 * Starting our own servers as child processes: run a command line of ours, wait for its one JSON
 * ready line on stdout, keep (or forward) its stderr, and stop it with SIGTERM.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream } from "node:fs";

export interface ServerProcess {
  readonly child: ChildProcess;
  /** Everything the process wrote to stderr so far (when not sent to a log file). */
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
  /** The parsed ready line. */
  readonly ready: Promise<Record<string, unknown>>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface SpawnOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Append stderr to this file instead of keeping it in memory. */
  readonly logFile?: string;
  /** A predicate for the ready line; defaults to a JSON line with "ready": true. */
  readonly isReady?: (line: string) => boolean;
}

const isJsonReady = (line: string) => line.startsWith("{") && line.includes('"ready":true');

// Children never outlive the process that started them, even when it exits abruptly.
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

export function spawnServer(command: string, args: readonly string[], options: SpawnOptions = {}): ServerProcess {
  const child = spawn(command, [...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  if (options.logFile === undefined) {
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  } else {
    child.stderr.pipe(createWriteStream(options.logFile, { flags: "a" }));
  }
  running.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const isReady = options.isReady ?? isJsonReady;
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split("\n").find(isReady);
      if (line !== undefined) resolve(line.startsWith("{") ? (JSON.parse(line) as Record<string, unknown>) : { line });
    });
    void exited.then((code) =>
      reject(new Error(`${[command, ...args].join(" ")} exited with ${code} before it was ready\n${stderr}`)),
    );
  });
  ready.catch(() => undefined);
  return {
    child,
    stderr: () => stderr,
    exited,
    ready,
    stop(signal: NodeJS.Signals = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
      child.kill(signal);
      return exited;
    },
  };
}

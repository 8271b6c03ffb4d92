/**
 * The Docker engine for the container test: installs Debian's docker.io, docker-compose and
 * debootstrap when they are missing, starts dockerd when no daemon answers, and stops only a
 * dockerd it started. Where no engine can run, it says why as a value, so the test skips loudly.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export type Engine = { ok: true; started: boolean; stop(): Promise<void> } | { ok: false; reason: string };

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to completion and returns its exit code and output. */
export function run(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { cwd: options.cwd, env: options.env ?? process.env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}

/** Runs a command that must succeed and returns its stdout; a failure throws with its output. */
export async function must(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<string> {
  const result = await run(command, args, options);
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(" ")} exited with ${result.code}\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

function onPath(command: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
}

async function answers(): Promise<boolean> {
  return (await run("docker", ["info", "--format", "{{.ServerVersion}}"])).code === 0;
}

const PACKAGES = {
  docker: "docker.io",
  dockerd: "docker.io",
  "docker-compose": "docker-compose",
  debootstrap: "debootstrap",
};

async function install(): Promise<string | undefined> {
  const missing = [...new Set(Object.entries(PACKAGES).flatMap(([cmd, pkg]) => (onPath(cmd) ? [] : [pkg])))];
  if (missing.length === 0) return undefined;
  if (process.getuid?.() !== 0) return `${missing.join(", ")} not installed, and only root can install them`;
  await must("apt-get", ["update", "-qq"]);
  await must("apt-get", ["install", "-y", "-qq", ...missing], {
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  return undefined;
}

/** Makes a Docker engine answer, or says why none can. */
export async function ensureEngine(): Promise<Engine> {
  const notInstalled = await install();
  if (notInstalled !== undefined) return { ok: false, reason: notInstalled };
  if (await answers()) return { ok: true, started: false, stop: async () => {} };
  if (process.getuid?.() !== 0)
    return { ok: false, reason: "no Docker daemon answers, and only root can start dockerd" };

  const dir = mkdtempSync(path.join(tmpdir(), "sh-dockerd-"));
  const logFile = path.join(dir, "dockerd.log");
  const log = openSync(logFile, "a");
  const child = spawn("dockerd", ["--pidfile", path.join(dir, "dockerd.pid")], { stdio: ["ignore", log, log] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  const stop = async () => {
    if (!gone) child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && !gone) {
    if (await answers()) return { ok: true, started: true, stop };
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const lastLine = readFileSync(logFile, "utf8").trim().split("\n").at(-1) ?? "";
  await stop();
  return { ok: false, reason: `dockerd did not start${gone ? "" : " within 60 s"}: ${lastLine}` };
}

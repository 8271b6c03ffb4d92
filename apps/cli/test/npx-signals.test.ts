/**
 * The documented way to run a server, `npx social-harness router|daemon`, stops on a SIGTERM to
 * the process the user started (SPEC §13): npm runs the bin through `sh -c`, which does not pass
 * the signal on, so the server must notice that its starter is gone. Real `npx` processes here.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnServer, type ServerProcess } from "../src/spawn-server.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const CLI = path.join(REPO, "apps/cli/bin/social-harness.js");

/** The pids of every live descendant of `pid`, read from /proc. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // The process ended while the table was read.
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts `npx social-harness <args>` from the repository and resolves with its ready line. */
function npx(args: readonly string[]): { child: ChildProcess; ready: Promise<Record<string, unknown>> } {
  const child = spawn("npx", ["social-harness", ...args], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split("\n").find((l) => l.includes('"ready":true'));
      if (line !== undefined) resolve(JSON.parse(line) as Record<string, unknown>);
    });
    child.once("exit", (code) => reject(new Error(`npx exited with ${code} before it was ready\n${stderr}`)));
  });
  return { child, ready };
}

async function stopsOnSigterm(args: readonly string[], portOf: (ready: Record<string, unknown>) => number) {
  const { child, ready } = npx(args);
  const port = portOf(await ready);
  const tree = descendants(child.pid!);
  expect(tree.length).toBeGreaterThan(0);
  expect(await portOpen(port)).toBe(true);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    process.kill(child.pid!, "SIGTERM");
    await exited;
    await until(() => tree.every((pid) => !alive(pid)), "every process under npx to end");
    expect(await portOpen(port)).toBe(false);
  } finally {
    for (const pid of tree.filter(alive)) process.kill(pid, "SIGKILL");
  }
}

/**
 * SIGTERM to npx while the server it started is still starting: once `file` exists the server's
 * modules have loaded and it is opening its data, but it has printed nothing yet. It must still
 * end, although its starter is gone before it could look for it.
 */
async function stopsWhileStarting(args: readonly string[], file: string) {
  const { child, ready } = npx(args);
  ready.catch(() => undefined);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  let tree: number[] = [];
  try {
    await until(() => existsSync(file), `${file} to be created`);
    tree = descendants(child.pid!);
    expect(tree.length).toBeGreaterThan(0);
    process.kill(child.pid!, "SIGTERM");
    await exited;
    await until(() => tree.every((pid) => !alive(pid)), "every process under npx to end");
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    for (const pid of tree.filter(alive)) process.kill(pid, "SIGKILL");
  }
}

describe("npx social-harness under SIGTERM", () => {
  const dirs: string[] = [];
  const temp = (prefix: string) => {
    const dir = mkdtempSync(path.join(tmpdir(), `sh-npx-${prefix}-`));
    dirs.push(dir);
    return dir;
  };
  let router: ServerProcess;
  let routerUrl: string;

  beforeAll(async () => {
    router = spawnServer(process.execPath, [CLI, "router", "--data", temp("router"), "--listen", "127.0.0.1:0"]);
    routerUrl = (await router.ready).router as string;
  });
  afterAll(async () => {
    await router?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("stops the router it started: its port closes and no process is left behind", async () => {
    await stopsOnSigterm(["router", "--data", temp("r"), "--listen", "127.0.0.1:0"], (ready) =>
      Number(new URL(ready.router as string).port),
    );
  });

  it("stops the daemon it started: its port closes and no process is left behind", async () => {
    await stopsOnSigterm(
      ["daemon", "--name", "npx-alice", "--router", routerUrl, "--data", temp("d"), "--listen", "127.0.0.1:0"],
      (ready) => Number(new URL(ready.mcp as string).port),
    );
  });

  it("stops a daemon whose npx was stopped while the daemon was still starting", async () => {
    const data = temp("starting");
    await stopsWhileStarting(
      ["daemon", "--name", "npx-bob", "--router", routerUrl, "--data", data, "--listen", "127.0.0.1:0"],
      path.join(data, "daemon.db"),
    );
  });
});

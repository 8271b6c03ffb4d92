/**
 * `node bench/dist/count.js`: what one send and one read cost in database work. A router and two
 * daemons run with SOCIAL_HARNESS_STATEMENT_COUNTS (the daemons count their statements and
 * transactions) and, where strace is installed, under `strace -f` for their fsync/fdatasync
 * calls. Alice sends bob 100 sequential direct messages, then bob reads his inbox 100 times; the
 * figures are the differences over each burst divided by its size. Prints a table; asserts nothing.
 * BENCH_CLI=<path to social-harness.js> counts another build's servers (before/after comparisons).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { spawnServer, type ServerProcess } from "@social-harness/cli";
import type { StatementCounts } from "@social-harness/sqlite";
import { CLI, rawToolCall, type Daemon } from "./network.js";

const BURST = 100;
const root = mkdtempSync(path.join(tmpdir(), "sh-count-"));
const hasStrace = (() => {
  try {
    execFileSync("strace", ["-V"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
const processes: ServerProcess[] = [];

function start(name: string, args: string[]): ServerProcess {
  const counts = path.join(root, `${name}.counts.json`);
  const trace = path.join(root, `${name}.strace`);
  const command = hasStrace ? "strace" : process.execPath;
  const prefix = hasStrace ? ["-f", "-tt", "-e", "trace=fsync,fdatasync", "-o", trace, process.execPath] : [];
  const server = spawnServer(command, [...prefix, CLI, ...args], {
    env: { LOG_LEVEL: "warn", SOCIAL_HARNESS_STATEMENT_COUNTS: counts },
  });
  processes.push(server);
  return server;
}

/** Stops a server; under strace, by signalling the traced node (strace would only detach). */
async function stop(server: ServerProcess): Promise<void> {
  const pid = server.child.pid;
  if (hasStrace && pid !== undefined && server.child.exitCode === null) {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/);
    for (const child of children.filter((c) => c !== "")) process.kill(Number(child), "SIGTERM");
    await server.exited;
    return;
  }
  await server.stop();
}

const countsOf = (name: string): StatementCounts | undefined => {
  const file = path.join(root, `${name}.counts.json`);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as StatementCounts;
  } catch {
    // Read while the daemon was rewriting it: the next look gets the whole file.
    return undefined;
  }
};

/** Waits until a process's counts have not changed for half a second. */
async function settled(name: string): Promise<StatementCounts | undefined> {
  let last = JSON.stringify(countsOf(name));
  for (;;) {
    await sleep(500);
    const now = JSON.stringify(countsOf(name));
    if (now === last) return countsOf(name);
    last = now;
  }
}

const secondsOfDay = (d: Date) =>
  d.getHours() * 3600 + d.getMinutes() * 60 + d.getSeconds() + d.getMilliseconds() / 1000;

/** fsync and fdatasync calls a process traced between two moments. */
function fsyncsBetween(name: string, from: Date, to: Date): number | undefined {
  if (!hasStrace) return undefined;
  const [a, b] = [secondsOfDay(from), secondsOfDay(to)];
  return readFileSync(path.join(root, `${name}.strace`), "utf8")
    .split("\n")
    .filter((line) => /f(data)?sync\(/.test(line) && !line.includes("resumed>"))
    .map((line) => /(\d\d):(\d\d):(\d\d\.\d+)/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]))
    .filter((t) => t >= a && t <= b).length;
}

function delta(after: StatementCounts | undefined, before: StatementCounts | undefined): Record<string, string> {
  if (after === undefined || before === undefined) return {};
  return Object.fromEntries(
    (Object.keys(after) as (keyof StatementCounts)[]).map((k) => [k, ((after[k] - before[k]) / BURST).toFixed(2)]),
  );
}

async function daemon(name: string, routerUrl: string): Promise<Daemon> {
  const data = path.join(root, name);
  const server = start(name, [
    "daemon",
    "--name",
    name,
    "--router",
    routerUrl,
    "--data",
    data,
    "--listen",
    "127.0.0.1:0",
  ]);
  const line = await server.ready;
  return {
    name,
    mcp: line.mcp as string,
    data,
    process: server,
    token: () => readFileSync(path.join(data, "runtime.token"), "utf8").trim(),
  };
}

try {
  const router = start("router", ["router", "--data", path.join(root, "router"), "--listen", "127.0.0.1:0"]);
  const routerUrl = (await router.ready).router as string;
  const alice = await daemon("alice", routerUrl);
  const bob = await daemon("bob", routerUrl);
  // A daemon is ready before its link has registered it; the first send waits for bob's.
  for (let tries = 0; ; tries++) {
    try {
      await rawToolCall(alice, "send_message", { to: "agent:bob", text: "first" });
      break;
    } catch (error) {
      if (tries > 100) throw error;
      await sleep(100);
    }
  }
  for (let i = 0; i < 20; i++) await rawToolCall(alice, "send_message", { to: "agent:bob", text: `warm-up ${i}` });
  const [a0, b0] = [await settled("alice"), await settled("bob")];
  const sendsFrom = new Date();
  for (let i = 0; i < BURST; i++) await rawToolCall(alice, "send_message", { to: "agent:bob", text: `counted ${i}` });
  const [a1, b1] = [await settled("alice"), await settled("bob")];
  const sendsTo = new Date();
  const readsFrom = new Date();
  for (let i = 0; i < BURST; i++) await rawToolCall(bob, "read_inbox", {});
  const b2 = await settled("bob");
  const readsTo = new Date();
  for (const server of processes.reverse()) await stop(server);
  const fsyncs = (name: string, from: Date, to: Date) => {
    const n = fsyncsBetween(name, from, to);
    return n === undefined ? "(no strace)" : (n / BURST).toFixed(2);
  };
  const table = [
    { per: "send, at the sender (alice)", ...delta(a1, a0), fsyncs: fsyncs("alice", sendsFrom, sendsTo) },
    { per: "send, at the recipient (bob)", ...delta(b1, b0), fsyncs: fsyncs("bob", sendsFrom, sendsTo) },
    { per: "send, at the router", fsyncs: fsyncs("router", sendsFrom, sendsTo) },
    { per: "read_inbox, at the reader (bob)", ...delta(b2, b1), fsyncs: fsyncs("bob", readsFrom, readsTo) },
  ];
  console.table(table);
} finally {
  for (const server of processes) await stop(server);
  rmSync(root, { recursive: true, force: true });
}

/**
 * Runs the platform floor (bench/skeleton.ts) as three processes and measures each one's CPU per
 * direct post, the same way the cpu section measures ours: /proc around a batch sent 8 in flight.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cpuMs, quiet } from "./meter.js";
import { postJson } from "./network.js";

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), "skeleton.js");

export interface SkeletonCost {
  readonly sender: number;
  readonly router: number;
  readonly recipient: number;
  readonly rate: number;
}

function start(args: string[]): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, [SCRIPT, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the skeleton ${args[0]} exited (${code})`)));
    child.stdout.once("data", (chunk: Buffer) => resolve({ child, line: chunk.toString("utf8").trim() }));
  });
}

const TEXT = "x".repeat(300);

export async function skeletonCostPerPost(
  root: string,
  load: { readonly warmup: number; readonly posts: number; readonly inFlight: number },
): Promise<SkeletonCost> {
  const { posts: count, inFlight } = load;
  const dir = mkdtempSync(path.join(root, "skeleton-"));
  const children: ChildProcess[] = [];
  try {
    const router = await start(["router", dir]);
    children.push(router.child);
    const recipient = await start(["recipient", dir, router.line]);
    children.push(recipient.child);
    const sender = await start(["sender", dir, router.line]);
    children.push(sender.child);
    const url = `http://127.0.0.1:${sender.line}/`;
    let id = 0;
    const post = async () => {
      await postJson(
        url,
        { accept: "application/json, text/event-stream" },
        JSON.stringify({
          jsonrpc: "2.0",
          id: id++,
          method: "tools/call",
          params: { name: "send_message", arguments: { to: "agent:b" }, text: TEXT },
        }),
      );
    };
    const batch = async (n: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (next++ < n) await post();
        }),
      );
    };
    await batch(load.warmup); // warm up: the JIT, the pages of each database, as ours
    const pids = children.map((c) => c.pid!);
    await quiet(pids);
    const before = pids.map(cpuMs);
    const started = performance.now();
    await batch(count);
    const seconds = (performance.now() - started) / 1000;
    await quiet(pids);
    const used = pids.map((pid, i) => (cpuMs(pid) - before[i]!) / count);
    return { router: used[0]!, recipient: used[1]!, sender: used[2]!, rate: count / seconds };
  } finally {
    for (const child of children) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}

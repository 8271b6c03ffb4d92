/**
 * Runs the platform floor (bench/skeleton.ts) as three processes and measures each one's CPU per
 * direct post, the same way the cpu section measures ours: /proc around a batch sent 8 in flight,
 * and the latency of its sequential sends (`skeletonSendLatency`), as the latency section times ours.
 * `skeletonCertifyRate` runs its certifier under the router section's load instead.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { WebSocket } from "ws";
import { WARMUP_PER_LINK } from "./jetstream.js";
import { cpuMs, quiet } from "./meter.js";
import { percentile, postJson } from "./network.js";
import type { CertifyRun } from "./router-certify.js";
import { CERTIFIED, frame, linkKey, PROPOSE, RECORD_PREV_BYTES } from "./skeleton-wire.js";

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

/** The skeleton's three processes, running: the sender's URL and each one's pid. */
interface SkeletonNetwork {
  /** One post through the skeleton: its send_message call, answered once the record is stored. */
  readonly post: () => Promise<unknown>;
  /** router, recipient, sender. */
  readonly pids: readonly number[];
  close(): void;
}

async function skeletonNetwork(root: string, client: "http" | "fetch"): Promise<SkeletonNetwork> {
  const dir = mkdtempSync(path.join(root, "skeleton-"));
  const children: ChildProcess[] = [];
  const close = () => {
    for (const child of children) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const router = await start(["router", dir]);
    children.push(router.child);
    const recipient = await start(["recipient", dir, router.line]);
    children.push(recipient.child);
    const sender = await start(["sender", dir, router.line]);
    children.push(sender.child);
    const url = `http://127.0.0.1:${sender.line}/`;
    const headers = { accept: "application/json, text/event-stream" };
    let id = 0;
    const body = () =>
      JSON.stringify({
        jsonrpc: "2.0",
        id: id++,
        method: "tools/call",
        params: { name: "send_message", arguments: { to: "agent:b" }, text: TEXT },
      });
    // The latency row's client is fetch, as ours is measured over rawToolCall; the CPU rows' is
    // node:http's kept connections, as before.
    const post =
      client === "http"
        ? () => postJson(url, headers, body())
        : async () =>
            (
              await fetch(url, {
                method: "POST",
                headers: { ...headers, "content-type": "application/json" },
                body: body(),
              })
            ).json();
    return { post, pids: children.map((c) => c.pid!), close };
  } catch (error) {
    close();
    throw error;
  }
}

export async function skeletonCostPerPost(
  root: string,
  load: { readonly warmup: number; readonly posts: number; readonly inFlight: number },
): Promise<SkeletonCost> {
  const { posts: count, inFlight } = load;
  const net = await skeletonNetwork(root, "http");
  try {
    const batch = async (n: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (next++ < n) await net.post();
        }),
      );
    };
    await batch(load.warmup); // warm up: the JIT, the pages of each database, as ours
    const { pids } = net;
    await quiet(pids);
    const before = pids.map(cpuMs);
    const started = performance.now();
    await batch(count);
    const seconds = (performance.now() - started) / 1000;
    await quiet(pids);
    const used = pids.map((pid, i) => (cpuMs(pid) - before[i]!) / count);
    return { router: used[0]!, recipient: used[1]!, sender: used[2]!, rate: count / seconds };
  } finally {
    net.close();
  }
}

/**
 * The platform floor of a sequential send's latency, its p50 and p99: the skeleton's posts one
 * after another over fetch, after the same warm-up as ours, each timed from the request to its
 * answer read.
 */
export async function skeletonSendLatency(
  root: string,
  load: { readonly warmup: number; readonly samples: number },
): Promise<{ p50: number; p99: number }> {
  const net = await skeletonNetwork(root, "fetch");
  try {
    for (let i = 0; i < load.warmup; i++) await net.post();
    const samples: number[] = [];
    for (let i = 0; i < load.samples; i++) {
      const started = performance.now();
      await net.post();
      samples.push(performance.now() - started);
    }
    return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
  } finally {
    net.close();
  }
}

function open(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  return new Promise((resolve, reject) => {
    socket.once("open", () => resolve(socket));
    socket.once("error", reject);
  });
}

/**
 * The skeleton certifier's rate under the router section's load (router-certify.ts): 8 links, one
 * proposal in flight each, 300-byte texts, each record naming the hash of the link's previous one,
 * and a sink that every record is pushed to. Certified records per second and the certifier's CPU per record, over the timed round after the same warm-up.
 */
export async function skeletonCertifyRate(root: string, options: { perSender: number }): Promise<CertifyRun> {
  const senders = 8;
  const dir = mkdtempSync(path.join(root, "certifier-"));
  const certifier = await start(["certifier", dir]);
  const sockets: WebSocket[] = [];
  try {
    const base = `ws://127.0.0.1:${certifier.line}`;
    sockets.push(await open(`${base}/sink`));
    const text = Buffer.from("x".repeat(300));
    let ids = 0;
    const links = await Promise.all(
      Array.from({ length: senders }, async (_, i) => {
        const socket = await open(`${base}/link/${i}`);
        sockets.push(socket);
        const waiting = new Map<number, () => void>();
        socket.on("message", (data: Buffer) => {
          if (data[0] !== CERTIFIED) return;
          const id = data.readUInt32BE(1);
          waiting.get(id)?.();
          waiting.delete(id);
        });
        return { socket, waiting, key: linkKey(i), prev: Buffer.alloc(RECORD_PREV_BYTES) };
      }),
    );
    const round = (count: number) =>
      Promise.all(
        links.map(async (link) => {
          for (let n = 0; n < count; n++) {
            const record = Buffer.concat([link.prev, randomBytes(16), text]);
            const id = ++ids;
            const certified = new Promise<void>((resolve) => link.waiting.set(id, resolve));
            link.socket.send(frame(PROPOSE, id, record, link.key.sign(record)));
            await certified;
            link.prev = createHash("sha256").update(record).digest();
          }
        }),
      );
    await round(WARMUP_PER_LINK);
    const cpu = cpuMs(certifier.child.pid!);
    const started = performance.now();
    await round(options.perSender);
    const seconds = (performance.now() - started) / 1000;
    const records = senders * options.perSender;
    return { rate: records / seconds, cpuMs: (cpuMs(certifier.child.pid!) - cpu) / records };
  } finally {
    for (const socket of sockets) socket.close();
    certifier.child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The anchor for the router's certification rate: NATS JetStream durable publishes with the same
 * load (8 publishers × 1 in flight, 300-byte messages over 64 subjects), each publish waiting for
 * its stored acknowledgment. Two servers: the machine's own on 127.0.0.1:4222 in its default mode
 * (it acknowledges before any fsync), and one the bench starts on a store folder with the ext4
 * synchronous-write attribute (chattr +S), so each stored message reaches the disk before its ack:
 * the Debian 2.9 server has no per-message sync option.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { connect, StorageType, type NatsConnection } from "nats";
import { WARMUP_CALLS } from "./network.js";

export interface JetStreamLoad {
  readonly publishers: number;
  readonly perPublisher: number;
  readonly bytes: number;
  readonly subjects: number;
}

export const ANCHOR_LOAD: JetStreamLoad = { publishers: 8, perPublisher: 500, bytes: 300, subjects: 64 };
/** Publishes (or proposals) each link makes before the measured ones: this process's client code settles. */
export const WARMUP_PER_LINK = Math.ceil(WARMUP_CALLS / ANCHOR_LOAD.publishers);

/** Publishes the load to a fresh stream on `server` and returns acknowledged messages per second. */
export async function jetStreamRate(server: string, load: JetStreamLoad): Promise<number> {
  const stream = `SH_BENCH_${process.pid}_${Date.now()}`;
  const prefix = stream.toLowerCase();
  const admin = await connect({ servers: server });
  const jsm = await admin.jetstreamManager();
  await jsm.streams.add({ name: stream, subjects: [`${prefix}.>`], storage: StorageType.File });
  const publishers: NatsConnection[] = [];
  try {
    for (let i = 0; i < load.publishers; i++) publishers.push(await connect({ servers: server }));
    const payload = new Uint8Array(load.bytes).fill(120);
    const run = async (nc: NatsConnection, p: number, count: number) => {
      const js = nc.jetstream();
      for (let i = 0; i < count; i++) await js.publish(`${prefix}.${(p * count + i) % load.subjects}`, payload);
    };
    await Promise.all(publishers.map((nc, p) => run(nc, p, WARMUP_PER_LINK)));
    const start = performance.now();
    await Promise.all(publishers.map((nc, p) => run(nc, p, load.perPublisher)));
    return (load.publishers * load.perPublisher) / ((performance.now() - start) / 1000);
  } finally {
    for (const nc of publishers) await nc.close();
    await jsm.streams.delete(stream).catch(() => false);
    await admin.close();
  }
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export interface SyncedJetStream {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts `nats-server -js` on its own port with a store folder marked chattr +S. */
export async function startSyncedJetStream(root: string): Promise<SyncedJetStream> {
  const store = path.join(root, "nats-sync");
  mkdirSync(store, { recursive: true });
  // Files and folders created below inherit the attribute (ext4), so every write is synchronous.
  execFileSync("chattr", ["+S", store]);
  const port = await freePort();
  const child = spawn("nats-server", ["-js", "-sd", store, "-a", "127.0.0.1", "-p", String(port)], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  await new Promise<void>((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes("Server is ready")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`nats-server exited (${code}) before it was ready\n${log}`)));
  });
  return {
    url: `127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

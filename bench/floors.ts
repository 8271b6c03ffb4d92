/**
 * The floors every figure is compared with, measured in the same run on the same machine: one
 * fsync, a bare HTTP POST round trip, a loopback WebSocket round trip, native ed25519 sign and
 * verify. Nothing of ours runs here; these are what the hardware and Node give anyone.
 */
import { fdatasyncSync, openSync, closeSync, writeSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { generateKeyPairSync, sign, verify } from "node:crypto";
import { WebSocketServer, WebSocket } from "ws";
import { percentile, WARMUP_CALLS } from "./network.js";

export interface Floors {
  /** Milliseconds, p50 of a 4 KiB write + fdatasync in the bench's directory. */
  readonly fsync: number;
  readonly httpPost: number;
  readonly webSocket: number;
  readonly sign: number;
  readonly verify: number;
}

function fsyncP50(dir: string, count: number): number {
  const file = path.join(dir, "fsync-floor.bin");
  const fd = openSync(file, "w");
  const block = Buffer.alloc(4096, 7);
  const samples: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      writeSync(fd, block, 0, block.length, (i % 256) * block.length);
      const start = performance.now();
      fdatasyncSync(fd);
      samples.push(performance.now() - start);
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  return percentile(samples, 50);
}

async function httpPostP50(count: number): Promise<number> {
  return httpAnswerP50("{}", count);
}

/**
 * p50 of a fetch POST of 300 B to a trivial server that answers `answer`, read by the client as
 * JSON (as a host reads a tool's result): with a page's bytes, the least any server of that page
 * can cost its reader.
 */
export async function httpAnswerP50(answer: string, count: number): Promise<number> {
  const body = Buffer.alloc(300, "x");
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  // fetch, as the hosts' MCP clients use: keep-alive, one request in flight.
  const post = async () => {
    const response = await fetch(`http://127.0.0.1:${port}/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    await response.json();
  };
  const samples: number[] = [];
  try {
    for (let i = 0; i < WARMUP_CALLS + count; i++) {
      const start = performance.now();
      await post();
      if (i >= WARMUP_CALLS) samples.push(performance.now() - start);
    }
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return percentile(samples, 50);
}

async function webSocketP50(count: number): Promise<number> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  wss.on("connection", (socket) => socket.on("message", (data: Buffer) => socket.send(data)));
  await new Promise<void>((resolve) => wss.once("listening", resolve));
  const port = (wss.address() as { port: number }).port;
  const client = new WebSocket(`ws://127.0.0.1:${port}`, { perMessageDeflate: false });
  await new Promise((resolve) => client.once("open", resolve));
  const frame = Buffer.alloc(300, 1);
  const samples: number[] = [];
  try {
    for (let i = 0; i < WARMUP_CALLS + count; i++) {
      const start = performance.now();
      await new Promise<void>((resolve) => {
        client.once("message", () => resolve());
        client.send(frame);
      });
      if (i >= WARMUP_CALLS) samples.push(performance.now() - start);
    }
  } finally {
    client.close();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  }
  return percentile(samples, 50);
}

function signVerify(count: number): { sign: number; verify: number } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const message = Buffer.alloc(400, 3);
  let signature = sign(null, message, privateKey);
  let start = performance.now();
  for (let i = 0; i < count; i++) signature = sign(null, message, privateKey);
  const signMs = (performance.now() - start) / count;
  start = performance.now();
  for (let i = 0; i < count; i++) verify(null, message, publicKey, signature);
  return { sign: signMs, verify: (performance.now() - start) / count };
}

export async function measureFloors(dir: string, quick: boolean): Promise<Floors> {
  const n = quick ? 300 : 1000;
  const fsync = fsyncP50(dir, n);
  const httpPost = await httpPostP50(n);
  const webSocket = await webSocketP50(n);
  return { fsync, httpPost, webSocket, ...signVerify(quick ? 2000 : 10_000) };
}

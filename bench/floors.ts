/**
 * The floors every figure is compared with, measured in the same run on the same machine: one
 * fsync, a bare HTTP POST round trip, a loopback WebSocket round trip, ed25519 sign and verify in
 * the implementation the servers run (libsodium where it loads) and in Node's OpenSSL. Nothing of
 * ours runs here; these are what the hardware and the libraries give anyone.
 */
import { fdatasyncSync, openSync, closeSync, writeSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import { ed25519, openSslEd25519, type Ed25519 } from "@social-harness/protocol";
import { WebSocketServer, WebSocket } from "ws";
import { percentile, WARMUP_CALLS } from "./network.js";

export interface Floors {
  /** Milliseconds, p50 of a 4 KiB write + fdatasync in the bench's directory. */
  readonly fsync: number;
  readonly httpPost: number;
  readonly webSocket: number;
  /** Milliseconds of one sign and one verify in `ed25519` (the servers' implementation). */
  readonly sign: number;
  readonly verify: number;
  readonly ed25519: Ed25519["name"];
  /** The same in Node's OpenSSL, issue 18's anchor. */
  readonly openssl: { readonly sign: number; readonly verify: number };
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

function signVerify(impl: Ed25519, count: number): { sign: number; verify: number } {
  const signer = impl.signer(randomBytes(32));
  const message = Buffer.alloc(400, 3);
  let signature = signer.sign(message);
  let start = performance.now();
  for (let i = 0; i < count; i++) signature = signer.sign(message);
  const signMs = (performance.now() - start) / count;
  start = performance.now();
  for (let i = 0; i < count; i++) impl.verify(signer.publicKey, message, signature);
  return { sign: signMs, verify: (performance.now() - start) / count };
}

export async function measureFloors(dir: string, quick: boolean): Promise<Floors> {
  const n = quick ? 300 : 1000;
  const fsync = fsyncP50(dir, n);
  const httpPost = await httpPostP50(n);
  const webSocket = await webSocketP50(n);
  const count = quick ? 2000 : 10_000;
  const openssl = ed25519.name === "openssl" ? undefined : signVerify(openSslEd25519, count);
  const ours = signVerify(ed25519, count);
  return { fsync, httpPost, webSocket, ...ours, ed25519: ed25519.name, openssl: openssl ?? ours };
}

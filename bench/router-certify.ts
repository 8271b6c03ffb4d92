/**
 * The router on its own: several agents' links propose posts directly (no daemon, no MCP), each in
 * its own direct conversation with several proposals pipelined, and the figure is certified records
 * per second — the router's capacity to order, commit durably and certify.
 */
import { performance } from "node:perf_hooks";
import {
  actionMessage,
  decodeRouterFrame,
  encodeFrame,
  encodeRecord,
  generateSigningKey,
  LINK_PROTOCOL,
  linkAuthMessage,
  mintId,
  type RouterFrame,
} from "@social-harness/protocol";
import WebSocket from "ws";
import { WARMUP_PER_LINK } from "./jetstream.js";

interface Link {
  readonly name: string;
  send(frame: Parameters<typeof encodeFrame>[0]): void;
  next(match: (f: RouterFrame) => boolean): Promise<RouterFrame>;
  close(): void;
}

let runs = 0;

async function link(url: string, name: string): Promise<Link & { sign(bytes: Uint8Array): Uint8Array }> {
  const key = generateSigningKey();
  const socket = new WebSocket(url, { perMessageDeflate: false });
  const waiters: { match: (f: RouterFrame) => boolean; resolve: (f: RouterFrame) => void }[] = [];
  socket.on("message", (data: Buffer) => {
    const read = decodeRouterFrame(new Uint8Array(data));
    if (!read.ok) return;
    const i = waiters.findIndex((w) => w.match(read.frame));
    if (i >= 0) waiters.splice(i, 1)[0]!.resolve(read.frame);
  });
  const next = (match: (f: RouterFrame) => boolean) =>
    new Promise<RouterFrame>((resolve) => waiters.push({ match, resolve }));
  const challenge = next((f) => f.t === "challenge");
  await new Promise((resolve) => socket.once("open", resolve));
  const { nonce } = (await challenge) as Extract<RouterFrame, { t: "challenge" }>;
  const authenticated = next((f) => f.t === "authenticated");
  socket.send(
    encodeFrame({
      t: "authenticate",
      protocol: LINK_PROTOCOL,
      name,
      publicKey: key.publicKey,
      signature: key.sign(linkAuthMessage(nonce, name)),
    }),
  );
  await authenticated;
  return {
    name,
    send: (frame) => socket.send(encodeFrame(frame)),
    next,
    close: () => socket.close(),
    sign: (bytes) => key.sign(actionMessage(bytes)),
  };
}

/** Certified records per second with 8 links × 1 in flight, 300-byte texts (JetStream's load). */
export async function routerCertifyRate(routerUrl: string, options: { perSender: number }): Promise<number> {
  const senders = 8;
  const perSender = options.perSender;
  const run = `${process.pid % 10_000}-${++runs}`;
  const sink = await link(routerUrl, `raw-sink-${run}`);
  const links = await Promise.all(Array.from({ length: senders }, (_, i) => link(routerUrl, `raw-${run}-${i}`)));
  let id = 0;
  const prevs = new Map<string, string | null>();
  const round = (count: number) =>
    Promise.all(
      links.map(async (l) => {
        const conv = `direct:${[l.name, sink.name].sort().join(",")}`;
        let prev = prevs.get(l.name) ?? null;
        for (let i = 0; i < count; i++) {
          const bytes = encodeRecord({
            kind: "post",
            conv,
            prev,
            author: l.name,
            postId: mintId("post"),
            at: Date.now(),
            content: [
              { type: "text", text: `raw ${i} `.padEnd(300, "x") },
              { type: "collective", op: "multicast" },
            ],
          });
          const request = ++id;
          const answer = l.next((f) => "id" in f && f.id === request);
          l.send({ t: "propose", id: request, record: bytes, signature: l.sign(bytes) });
          const frame = await answer;
          if (frame.t !== "certified") throw new Error(`proposal refused: ${JSON.stringify(frame)}`);
          prev = frame.record;
        }
        prevs.set(l.name, prev);
      }),
    );
  // The same warm-up as JetStream's (jetstream.ts): this process's links and the router's code settle first.
  await round(WARMUP_PER_LINK);
  const start = performance.now();
  await round(perSender);
  const seconds = (performance.now() - start) / 1000;
  for (const l of [...links, sink]) l.close();
  return (senders * perSender) / seconds;
}

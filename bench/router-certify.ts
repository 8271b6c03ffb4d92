/**
 * The router on its own: several agents' links propose posts directly (no daemon, no MCP), each in
 * its own direct conversation with several proposals pipelined, and the figure is certified records
 * per second — the router's capacity to order, commit durably and certify — with the router's CPU
 * per record and, from its /metrics, how many proposals each group commit held and how long it took.
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
import { cpuMs } from "./meter.js";

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

/** A certifier under the section's load: its rate and its CPU, over the timed round only. */
export interface CertifyRun {
  /** Certified records per second. */
  readonly rate: number;
  /** The certifying process's CPU per certified record, all its threads (ms). */
  readonly cpuMs: number;
}

/** How our router's group commits went over the timed round (its /metrics, before and after). */
export interface GroupCommits {
  /** Appends (proposals) one commit and its fsync certified, on average. */
  readonly appendsPerCommit: number;
  /** A commit's mean duration until durable (ms). */
  readonly commitMs: number;
}

export interface RouterRun extends CertifyRun {
  readonly commits?: GroupCommits;
}

/** The router's group-commit totals in a /metrics text (all places summed). */
export function commitTotals(text: string): { commits: number; appends: number; seconds: number } {
  const totals = { commits: 0, appends: 0, seconds: 0 };
  for (const line of text.split("\n")) {
    const value = Number(line.slice(line.lastIndexOf(" ") + 1));
    if (line.startsWith("social_harness_router_commit_batch_appends_count ")) totals.commits += value;
    else if (line.startsWith("social_harness_router_commit_batch_appends_sum ")) totals.appends += value;
    else if (line.startsWith("social_harness_router_commit_duration_seconds_sum{")) totals.seconds += value;
  }
  return totals;
}

/** The commits between two scrapes; undefined when none ran. */
export function groupCommits(
  before: ReturnType<typeof commitTotals>,
  after: ReturnType<typeof commitTotals>,
): GroupCommits | undefined {
  const commits = after.commits - before.commits;
  if (commits <= 0) return undefined;
  return {
    appendsPerCommit: (after.appends - before.appends) / commits,
    commitMs: ((after.seconds - before.seconds) * 1000) / commits,
  };
}

const scrape = async (url: string) => commitTotals(await (await fetch(url)).text());

/** A router process as the section measures it: where it links, its pid, its /metrics if served. */
export interface MeasuredRouter {
  readonly url: string;
  readonly pid: number;
  readonly metricsUrl?: string;
}

/**
 * Certified records per second with 8 links × 1 in flight, 300-byte texts (JetStream's load), the
 * router's CPU per record and, given its /metrics, how its group commits went.
 */
export async function routerCertifyRate(router: MeasuredRouter, options: { perSender: number }): Promise<RouterRun> {
  const { url: routerUrl, pid, metricsUrl } = router;
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
  const before = metricsUrl === undefined ? undefined : await scrape(metricsUrl);
  const cpu = cpuMs(pid);
  const start = performance.now();
  await round(perSender);
  const seconds = (performance.now() - start) / 1000;
  const used = cpuMs(pid) - cpu;
  const commits = before === undefined ? undefined : groupCommits(before, await scrape(metricsUrl!));
  for (const l of [...links, sink]) l.close();
  const records = senders * perSender;
  return { rate: records / seconds, cpuMs: used / records, ...(commits === undefined ? {} : { commits }) };
}

/**
 * The latency anatomy of one sequential send: a router and two daemons of their own run with
 * SOCIAL_HARNESS_ANATOMY=1 and append monotonic timestamps of their hops to one file; the bench
 * adds its own (request sent, answer read). Posts go one at a time with a pause after each, so
 * every hop in the window after a send belongs to it. The waterfall gives each hop's median offset
 * from the client's send over the measured posts, and the step from the hop before.
 * BENCH_ANATOMY_PAUSE=<ms> sets that pause (60 by default); 0 sends back to back, as the latency
 * section does, and the recipient's hops of one post then fall partly in the next post's window.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { readAnatomy, type AnatomyHop } from "@social-harness/protocol";
import { BenchNetwork, percentile, rawToolCall, WARMUP_CALLS } from "./network.js";
import { median, printGrid } from "./table.js";

const PAUSE_MS = Number(process.env.BENCH_ANATOMY_PAUSE ?? 60);

export interface WaterfallStep {
  readonly label: string;
  readonly hop: string;
  /** Median milliseconds from the client's send. */
  readonly at: number;
  /** In how many of the measured posts the hop appeared. */
  readonly seen: number;
}

export interface Anatomy {
  readonly posts: number;
  readonly steps: readonly WaterfallStep[];
  /** Median client round trip of the measured posts. */
  readonly roundTrip: number;
}

/** A hop's identity across sends (process, hop and key), and the name the tables print for it. */
const hopId = (h: AnatomyHop) => `${h.label}\0${h.hop}${h.key === undefined ? "" : `\0${h.key}`}`;
const hopName = (h: AnatomyHop) => `${h.hop}${h.key === undefined ? "" : ` (${h.key})`}`;
/** From one monotonic stamp to a later one, in milliseconds. */
const msBetween = (from: bigint, to: bigint) => Number(to - from) / 1e6;

/** A send's window: from the request leaving the bench to its answer read. */
interface SendWindow {
  readonly sent: bigint;
  readonly answered: bigint;
}

/**
 * A router, alice and bob of their own with the anatomy switched on; once warmed up, alice sends
 * `posts` posts of 300 bytes to bob one at a time, `pauseMs` apart. Gives each send's window and
 * the hops the processes recorded from the first measured send on.
 */
async function timedSends(posts: number, pauseMs: number): Promise<{ hops: AnatomyHop[]; windows: SendWindow[] }> {
  const dir = mkdtempSync(path.join(tmpdir(), "sh-anatomy-"));
  const file = path.join(dir, "anatomy.jsonl");
  const net = new BenchNetwork({ env: { SOCIAL_HARNESS_ANATOMY: "1", SOCIAL_HARNESS_ANATOMY_FILE: file } });
  const windows: SendWindow[] = [];
  let measured = 0n;
  try {
    await net.startRouter();
    const alice = await net.startDaemon("alice");
    await net.startDaemon("bob");
    const send = (text: string) => rawToolCall(alice, "send_message", { to: "agent:bob", text });
    for (let tries = 0; ; tries++) {
      try {
        await send("first");
        break;
      } catch (error) {
        if (tries > 100) throw error;
        await sleep(100);
      }
    }
    for (let i = 0; i < WARMUP_CALLS; i++) await send(`warm-up ${i}`.padEnd(300, "x"));
    await sleep(300);
    measured = process.hrtime.bigint();
    for (let i = 0; i < posts; i++) {
      const sent = process.hrtime.bigint();
      await send(`anatomy ${i}`.padEnd(300, "x"));
      windows.push({ sent, answered: process.hrtime.bigint() });
      if (pauseMs > 0) await sleep(pauseMs);
    }
    await sleep(500);
  } finally {
    await net.close().catch(() => undefined);
  }
  try {
    return { hops: readAnatomy(file).filter((h) => h.ns >= measured), windows };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function sendAnatomy(posts: number): Promise<Anatomy> {
  const { hops, windows } = await timedSends(posts, PAUSE_MS);
  return waterfall(hops, windows);
}

function waterfall(hops: readonly AnatomyHop[], windows: readonly SendWindow[]): Anatomy {
  const offsets = new Map<string, { label: string; hop: string; values: number[] }>();
  windows.forEach((w, i) => {
    const end = windows[i + 1]?.sent ?? w.answered + 60_000_000n;
    const seen = new Map<string, number>();
    for (const h of hops) {
      if (h.ns < w.sent || h.ns >= end) continue;
      const base = hopId(h);
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      const id = n === 1 ? base : `${base}\0#${n}`;
      const name = `${hopName(h)}${n === 1 ? "" : ` #${n}`}`;
      const entry = offsets.get(id) ?? { label: h.label, hop: name, values: [] };
      entry.values.push(msBetween(w.sent, h.ns));
      offsets.set(id, entry);
    }
    const answered = offsets.get("bench\0answer read") ?? { label: "bench", hop: "answer read", values: [] };
    answered.values.push(msBetween(w.sent, w.answered));
    offsets.set("bench\0answer read", answered);
  });
  const steps = [...offsets.values()]
    .filter((o) => o.values.length >= windows.length / 2)
    .map((o) => ({ label: o.label, hop: o.hop, at: median(o.values), seen: o.values.length }))
    .sort((a, b) => a.at - b.at);
  return {
    posts: windows.length,
    steps: [{ label: "bench", hop: "request sent", at: 0, seen: windows.length }, ...steps],
    roundTrip: median(windows.map((w) => msBetween(w.sent, w.answered))),
  };
}

export function printAnatomy(anatomy: Anatomy): string {
  const header = ["process", "hop", "at (ms, median)", "step (ms)", "seen"];
  let previous = 0;
  const rows = anatomy.steps.map((s) => {
    const step = s.at - previous;
    previous = s.at;
    return [s.label, s.hop, s.at.toFixed(3), step.toFixed(3), `${s.seen}/${anatomy.posts}`];
  });
  return printGrid(
    `Latency anatomy of one sequential direct post (median over ${anatomy.posts}; round trip ${anatomy.roundTrip.toFixed(2)} ms)`,
    header,
    rows,
  );
}

/** One step of the tail anatomy: the time from the hop before to this one, within a send's window. */
export interface TailStep {
  readonly label: string;
  readonly hop: string;
  /** Median step over every measured send that reached the hop. */
  readonly all: number;
  /** Median step over the slowest sends that reached it. */
  readonly tail: number;
  /** In how many of the slowest sends this was the longest step. */
  readonly longest: number;
}

export interface TailAnatomy {
  readonly posts: number;
  readonly slowest: number;
  readonly p50: number;
  readonly p99: number;
  readonly steps: readonly TailStep[];
}

/**
 * Where the slowest sends spend their time: `posts` sends back to back, as the latency section
 * sends them, and for the slowest 1% (at least five), each step between consecutive hops of any
 * process inside the send's window (request sent to answer read) beside the same step in every
 * send. Back to back, the recipient's hops of one post fall in the next post's window; they are
 * steps of that window's timeline, as the work they stand for competes with it for the cores.
 */
export async function sendTailAnatomy(posts: number): Promise<TailAnatomy> {
  const { hops, windows } = await timedSends(posts, 0);
  return tailSteps(hops, windows);
}

/**
 * The tail anatomy of given sends (in the order sent): each window's steps between consecutive
 * hops, a hop counted at its first appearance in the window, and the answer's step from the last.
 */
export function tailSteps(hops: readonly AnatomyHop[], windows: readonly SendWindow[]): TailAnatomy {
  const names = new Map<string, { label: string; hop: string }>();
  let next = 0;
  const perWindow = windows.map((w) => {
    const steps = new Map<string, number>();
    let previous = w.sent;
    while (next < hops.length && hops[next]!.ns < w.sent) next++;
    for (let i = next; i < hops.length && hops[i]!.ns <= w.answered; i++) {
      const h = hops[i]!;
      const id = hopId(h);
      if (!steps.has(id)) {
        names.set(id, { label: h.label, hop: hopName(h) });
        steps.set(id, msBetween(previous, h.ns));
      }
      previous = h.ns;
    }
    names.set("bench\0answer read", { label: "bench", hop: "answer read" });
    steps.set("bench\0answer read", msBetween(previous, w.answered));
    return { total: msBetween(w.sent, w.answered), steps };
  });
  const totals = perWindow.map((w) => w.total);
  const count = Math.max(5, Math.ceil(windows.length / 100));
  const slowest = [...perWindow].sort((a, b) => b.total - a.total).slice(0, count);
  const longest = new Map<string, number>();
  for (const w of slowest) {
    const [id] = [...w.steps].reduce((a, b) => (b[1] > a[1] ? b : a));
    longest.set(id, (longest.get(id) ?? 0) + 1);
  }
  const medianOf = (group: typeof perWindow, id: string) => {
    const values = group.flatMap((w) => (w.steps.has(id) ? [w.steps.get(id)!] : []));
    return values.length === 0 ? 0 : median(values);
  };
  const steps = [...names]
    .map(([id, name]) => ({
      ...name,
      all: medianOf(perWindow, id),
      tail: medianOf(slowest, id),
      longest: longest.get(id) ?? 0,
    }))
    .filter((s) => s.longest > 0 || s.tail >= 0.5)
    .sort((a, b) => b.longest - a.longest || b.tail - a.tail);
  return { posts: windows.length, slowest: count, p50: percentile(totals, 50), p99: percentile(totals, 99), steps };
}

export function printTailAnatomy(tail: TailAnatomy): string {
  const header = [
    "process",
    "hop (the step that ends at it)",
    "step, all sends (ms)",
    "step, slowest (ms)",
    "longest step in",
  ];
  const rows = tail.steps.map((s) => [
    s.label,
    s.hop,
    s.all.toFixed(3),
    s.tail.toFixed(3),
    `${s.longest}/${tail.slowest}`,
  ]);
  return printGrid(
    `Tail anatomy: the slowest ${tail.slowest} of ${tail.posts} sends back to back (p50 ${tail.p50.toFixed(2)} ms, p99 ${tail.p99.toFixed(2)} ms): steps that were the longest in one of them or took 0.5 ms or more at the median`,
    header,
    rows,
  );
}

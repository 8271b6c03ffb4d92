/**
 * CPU (or instructions) per operation, per process: a direct post (sender, router, recipient), a
 * group post of 8 (sender, router, each of 7 recipients), a read_inbox page and an acknowledgment
 * (the reader). Each batch runs between two quiet moments of every process involved, so each
 * process's cost is its whole share of the batch: requests, pushes, acks, commits, threads.
 */
import { performance } from "node:perf_hooks";
import { quiet, type Meter } from "./meter.js";
import { leanToolCall, rawToolCall, type BenchNetwork, type Daemon } from "./network.js";
import { printGrid } from "./table.js";

/** One operation's cost: per process label, in the meter's unit, per operation. */
export interface OperationCost {
  readonly op: string;
  readonly count: number;
  readonly perProcess: readonly { readonly label: string; readonly value: number; readonly times?: number }[];
  /** The ed25519 work the operation needs, as signs and verifies (the floor's recipe). */
  readonly crypto: { readonly signs: number; readonly verifies: number };
  /** Wall-clock operations per second of the batch. */
  readonly rate: number;
}

export interface CpuLoad {
  /** Posts sent before each measured batch: the JIT's tiers and the heap's sizes settle first. */
  readonly warmup: number;
  /** read_inbox calls, and acknowledgments, before theirs are measured. */
  readonly warmupCalls: number;
  readonly posts: number;
  readonly groupPosts: number;
  readonly reads: number;
  readonly acks: number;
  readonly inFlight: number;
  /** The in-flight count of the throughput goal (issue 18: one sender, 16 in flight). */
  readonly wideInFlight: number;
}

const TEXT = "x".repeat(300);

async function concurrently(count: number, inFlight: number, run: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) await run(next++);
    }),
  );
}

/** A daemon is ready before its link has registered it: the first send retries until it has. */
async function untilAccepted(send: () => Promise<unknown>): Promise<void> {
  for (let tries = 0; ; tries++) {
    try {
      await send();
      return;
    } catch (error) {
      if (tries > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

const pidOf = (d: { process: { child: { pid?: number } } }) => d.process.child.pid!;

/** Runs `batch` between two quiet moments and returns each process's cost per operation. */
async function measure(
  meter: Meter,
  pids: readonly number[],
  count: number,
  batch: () => Promise<void>,
): Promise<{ values: number[]; rate: number }> {
  await quiet(pids);
  await meter.begin(pids);
  const start = performance.now();
  await batch();
  const seconds = (performance.now() - start) / 1000;
  await quiet(pids);
  const used = await meter.end(pids);
  return { values: used.map((v) => v / count), rate: count / seconds };
}

export async function cpuPerOperation(net: BenchNetwork, meter: Meter, load: CpuLoad): Promise<OperationCost[]> {
  const router = pidOf({ process: net.routerProcess! });
  const sender = await net.startDaemon("cpu-sender");
  const recipient = await net.startDaemon("cpu-recipient");
  const costs: OperationCost[] = [];
  // Posts go through the throughput loads' client (network.ts postJson), reads through fetch.
  const send = (from: Daemon, to: string) => leanToolCall(from, "send_message", { to, text: TEXT });
  try {
    await untilAccepted(() => send(sender, "agent:cpu-recipient"));
    await concurrently(load.warmup, load.inFlight, () => send(sender, "agent:cpu-recipient"));

    const pids = [pidOf(sender), router, pidOf(recipient)];
    for (const inFlight of [load.inFlight, load.wideInFlight]) {
      const direct = await measure(meter, pids, load.posts, () =>
        concurrently(load.posts, inFlight, () => send(sender, "agent:cpu-recipient")),
      );
      costs.push({
        op: `direct post (300 B, ${inFlight} in flight)`,
        count: load.posts,
        perProcess: [
          { label: "sender", value: direct.values[0]! },
          { label: "router", value: direct.values[1]! },
          { label: "recipient", value: direct.values[2]! },
        ],
        crypto: { signs: 2, verifies: 3 },
        rate: direct.rate,
      });
    }

    const readFirstPages = async (count: number) => {
      for (let i = 0; i < count; i++) await rawToolCall(recipient, "read_inbox", {});
    };
    await readFirstPages(load.warmupCalls);
    const reads = await measure(meter, [pidOf(recipient)], load.reads, () => readFirstPages(load.reads));
    costs.push({
      op: "read_inbox (first page of 50)",
      count: load.reads,
      perProcess: [{ label: "recipient", value: reads.values[0]! }],
      crypto: { signs: 0, verifies: 0 },
      rate: reads.rate,
    });

    const tokens: string[] = [];
    let cursor: string | undefined;
    while (tokens.length < load.warmupCalls + load.acks) {
      const page = await rawToolCall(recipient, "read_inbox", cursor === undefined ? {} : { cursor });
      const items = page.items as { deliveryToken: string }[];
      tokens.push(...items.map((i) => i.deliveryToken));
      cursor = page.nextCursor as string | undefined;
      if (cursor === undefined) break;
    }
    const acknowledge = async (deliveryTokens: readonly string[]) => {
      for (const deliveryToken of deliveryTokens)
        await rawToolCall(recipient, "acknowledge_delivery", { deliveryToken });
    };
    await acknowledge(tokens.slice(0, load.warmupCalls));
    const acked = tokens.slice(load.warmupCalls, load.warmupCalls + load.acks);
    const acks = await measure(meter, [pidOf(recipient)], acked.length, () => acknowledge(acked));
    costs.push({
      op: "acknowledge_delivery",
      count: acked.length,
      perProcess: [{ label: "recipient", value: acks.values[0]! }],
      crypto: { signs: 0, verifies: 0 },
      rate: acks.rate,
    });

    const others: Daemon[] = [];
    for (let i = 1; i <= 6; i++) others.push(await net.startDaemon(`cpu-member${i}`));
    const group = `group:${["cpu-sender", "cpu-recipient", ...others.map((d) => d.name)].sort().join(",")}`;
    await untilAccepted(() => send(sender, group));
    await concurrently(Math.ceil(load.warmup / 4), load.inFlight, () => send(sender, group));
    const members = [recipient, ...others];
    const groupPids = [pidOf(sender), router, ...members.map(pidOf)];
    const grouped = await measure(meter, groupPids, load.groupPosts, () =>
      concurrently(load.groupPosts, load.inFlight, () => send(sender, group)),
    );
    const perMember = grouped.values.slice(2).reduce((a, b) => a + b, 0) / members.length;
    costs.push({
      op: `group post, 8 members (${load.inFlight} in flight)`,
      count: load.groupPosts,
      perProcess: [
        { label: "sender", value: grouped.values[0]! },
        { label: "router", value: grouped.values[1]! },
        { label: "recipient", value: perMember, times: members.length },
      ],
      crypto: { signs: 2, verifies: 1 + 2 * members.length },
      rate: grouped.rate,
    });
    for (const d of others) await net.stop(d.process);
  } finally {
    await net.stop(sender.process);
    await net.stop(recipient.process);
  }
  return costs;
}

/** The per-operation table: each process's cost, their sum, and the crypto floor of the same run. */
export function printCosts(
  title: string,
  costs: readonly OperationCost[],
  unit: "ms" | "instructions",
  floor?: { sign: number; verify: number; name: string },
): string {
  const fmt = (v: number) => (unit === "ms" ? `${v.toFixed(3)} ms` : `${(v / 1e6).toFixed(2)} M`);
  const header = ["operation", "sender", "router", "recipient", "total", "ops/s (wall)"];
  if (floor !== undefined) header.push(`crypto floor (${floor.name})`, "total ÷ floor");
  const rows = costs.map((c) => {
    const of = (label: string) => c.perProcess.find((p) => p.label === label);
    const cell = (label: string) => {
      const p = of(label);
      if (p === undefined) return "";
      return p.times === undefined ? fmt(p.value) : `${fmt(p.value)} × ${p.times}`;
    };
    const total = c.perProcess.reduce((sum, p) => sum + p.value * (p.times ?? 1), 0);
    const cells = [c.op, cell("sender"), cell("router"), cell("recipient"), fmt(total), `${Math.round(c.rate)} /s`];
    if (floor !== undefined) {
      const f = c.crypto.signs * floor.sign + c.crypto.verifies * floor.verify;
      const recipe = `${c.crypto.signs} sign + ${c.crypto.verifies} verify`;
      cells.push(f === 0 ? "none" : `${fmt(f)} (${recipe})`, f === 0 ? "" : `${(total / f).toFixed(1)}×`);
    }
    return cells;
  });
  return printGrid(title, header, rows);
}

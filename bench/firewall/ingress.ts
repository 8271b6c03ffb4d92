/**
 * What the firewall adds to ingress, through real processes: one sender and three receiving
 * daemons (no policy; the example policy; the example policy plus the scripted judge), each
 * receiver's inbox watched on its push stream. A sample is the time from send_message to the
 * receiver's pendingCount event; sends rotate across receivers so drift hits all three alike. The
 * policies run in `guidance` mode: every check runs and is recorded, and the example's rate rule
 * (20 per sender per minute) cannot hold the bench's own stream of messages.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { Client } from "@modelcontextprotocol/client";
import Database from "better-sqlite3";
import type { FirewallPolicy } from "@social-harness/daemon";
import * as z from "zod";
import { mcpClient, percentile, type BenchNetwork } from "../network.js";

/** Arrival times of a receiver's inbox items, read from its events/stream pendingCount events. */
class Arrivals {
  private readonly at = new Map<number, number>();
  private readonly waiters = new Map<number, (time: number) => void>();
  private readonly controller = new AbortController();

  constructor(client: Client) {
    client.setNotificationHandler("notifications/events/event", { params: z.looseObject({}) }, (params) => {
      const count = (params as { data?: { pendingCount?: unknown } }).data?.pendingCount;
      if (typeof count !== "number") return;
      const now = performance.now();
      this.at.set(count, now);
      this.waiters.get(count)?.(now);
    });
    client
      .request({ method: "events/stream", params: { name: "org.social-harness/inbox.pending" } }, z.looseObject({}), {
        timeout: 2 ** 31 - 1,
        signal: this.controller.signal,
      })
      .catch(() => undefined);
  }

  /** When the inbox first held `count` pending items. */
  when(count: number, timeoutMs = 15_000): Promise<number> {
    const seen = this.at.get(count);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no pendingCount ${count} within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.set(count, (time) => {
        clearTimeout(timer);
        this.waiters.delete(count);
        resolve(time);
      });
    });
  }

  close(): void {
    this.controller.abort("the bench is done");
  }
}

export interface IngressReceiver {
  readonly label: string;
  readonly policy: FirewallPolicy | undefined;
}

export interface IngressFigures {
  readonly label: string;
  /** send_message → the receiver's pendingCount event, ms. */
  readonly p50: number;
  readonly p99: number;
  /** Inside the receiver: its record's stored_at → its inbox item's created_at (ms resolution). */
  readonly admit: { readonly p50: number; readonly p99: number };
  /** The receiver's own audit of each inbound check (latency_us), ms; undefined without a policy. */
  readonly check: { readonly p50: number; readonly p99: number } | undefined;
}

/** The receiver's own timestamps, read from its database (as fill-inbox.ts writes to one). */
function insideFigures(dataDir: string, skip: number): Pick<IngressFigures, "admit" | "check"> {
  const db = new Database(path.join(dataDir, "daemon.db"), { readonly: true, fileMustExist: true });
  try {
    const admit = db
      .prepare<[], { ms: number }>(
        "SELECT i.created_at - r.stored_at AS ms FROM inbox i JOIN records r ON r.hash = i.record_hash ORDER BY i.id",
      )
      .all()
      .slice(skip)
      .map((row) => row.ms);
    const checks = db
      .prepare<[], { us: number }>(
        "SELECT latency_us AS us FROM firewall_checks WHERE direction = 'inbound' ORDER BY id",
      )
      .all()
      .slice(skip)
      .map((row) => row.us / 1000);
    return {
      admit: { p50: percentile(admit, 50), p99: percentile(admit, 99) },
      check: checks.length === 0 ? undefined : { p50: percentile(checks, 50), p99: percentile(checks, 99) },
    };
  } finally {
    db.close();
  }
}

export const ingressText = (i: number) => `Status ${i}: the nightly export finished without errors.`;

export async function ingressLatency(
  net: BenchNetwork,
  receivers: readonly IngressReceiver[],
  samples: number,
  warmUp = 30,
): Promise<IngressFigures[]> {
  const sender = await net.startDaemon("fw-sender");
  const started = await Promise.all(
    receivers.map(async (receiver, i) => {
      const name = `fw-receiver${i}`;
      const extra: string[] = [];
      if (receiver.policy !== undefined) {
        const file = path.join(net.root, `${name}-policy.json`);
        writeFileSync(file, JSON.stringify({ ...receiver.policy, mode: "guidance" }));
        extra.push("--firewall-policy", file);
      }
      const daemon = await net.startDaemon(name, extra);
      const client = await mcpClient(daemon);
      const arrivals = new Arrivals(client);
      await arrivals.when(0);
      return { name, data: daemon.data, client, arrivals, count: 0, times: [] as number[] };
    }),
  );
  const send = await mcpClient(sender);
  try {
    let text = 0;
    for (let round = 0; round < warmUp + samples; round++) {
      for (let k = 0; k < started.length; k++) {
        const receiver = started[(round + k) % started.length]!;
        const start = performance.now();
        await send.callTool({
          name: "send_message",
          arguments: { to: `agent:${receiver.name}`, text: ingressText(text++) },
        });
        const arrived = await receiver.arrivals.when(++receiver.count);
        if (round >= warmUp) receiver.times.push(arrived - start);
      }
    }
  } finally {
    for (const receiver of started) {
      receiver.arrivals.close();
      await receiver.client.close();
    }
    await send.close();
  }
  return started.map((receiver, i) => ({
    label: receivers[i]!.label,
    p50: percentile(receiver.times, 50),
    p99: percentile(receiver.times, 99),
    ...insideFigures(receiver.data, warmUp),
  }));
}

/** The texts the ingress bench sends, for the scripted judge's table. */
export function ingressTexts(samples: number, receivers: number, warmUp = 30): string[] {
  return Array.from({ length: (warmUp + samples) * receivers }, (_, i) => ingressText(i));
}

/**
 * One durable SQLite commit (WAL, synchronous=FULL, a one-row insert) in `dir`, ms: the floor of
 * what the inbound firewall adds, since an admitted item commits once more after its check.
 */
export function commitFloor(dir: string, samples: number): { p50: number; p99: number; mean: number } {
  const file = path.join(dir, "commit-floor.db");
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
    const commit = db.transaction((v: string) => insert.run(v));
    const times: number[] = [];
    for (let i = 0; i < samples; i++) {
      const start = performance.now();
      commit("x".repeat(300));
      times.push(performance.now() - start);
    }
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    return { p50: percentile(times, 50), p99: percentile(times, 99), mean };
  } finally {
    db.close();
  }
}

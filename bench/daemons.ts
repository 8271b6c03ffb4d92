/**
 * Figures through real daemons: sequential send latency over MCP and over plain fetch, posts per
 * second end to end with 6 senders × 8 in flight, read_inbox from a plain fetch client, and the
 * daemon's resident memory idle and with 10^5 pending items.
 */
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { fillInbox } from "./fill-inbox.js";
import {
  type BenchNetwork,
  mcpClient,
  percentile,
  rawToolCall,
  rawToolResponse,
  rssOf,
  WARMUP_CALLS,
} from "./network.js";

export interface SendLatency {
  /** Through the official MCP client (the goal rows). */
  readonly p50: number;
  readonly p99: number;
  /** The same sends over plain fetch (rawToolCall), the client the skeleton's floor is timed with. */
  readonly fetchP50: number;
  readonly fetchP99: number;
}

export async function sendLatency(net: BenchNetwork, count: number): Promise<SendLatency> {
  const alice = await net.startDaemon("alice");
  await net.startDaemon("bob");
  const client = await mcpClient(alice);
  const send = (text: string) => client.callTool({ name: "send_message", arguments: { to: "agent:bob", text } });
  for (let i = 0; i < WARMUP_CALLS; i++) await send(`warm-up ${i}`);
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await send(`message ${i}`);
    samples.push(performance.now() - start);
  }
  await client.close();
  const overFetch: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await rawToolCall(alice, "send_message", { to: "agent:bob", text: `fetched ${i}` });
    overFetch.push(performance.now() - start);
  }
  return {
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    fetchP50: percentile(overFetch, 50),
    fetchP99: percentile(overFetch, 99),
  };
}

export interface Throughput {
  readonly perSecond: number;
  readonly p99: number;
  /** Milliseconds, the mean of the sends' latencies. */
  readonly mean: number;
  /** Sends in flight at once, over all the senders. */
  readonly inFlight: number;
}

/** 6 daemons × `inFlight` concurrent send_message calls each, all to one recipient. */
export async function postsPerSecond(net: BenchNetwork, perSender: number, inFlight = 8): Promise<Throughput> {
  const senders = await Promise.all(
    ["sender1", "sender2", "sender3", "sender4", "sender5", "sender6"].map((name) => net.startDaemon(name)),
  );
  await net.startDaemon("sink");
  const clients = await Promise.all(senders.map(mcpClient));
  const load = (posts: number, samples: number[]) =>
    Promise.all(
      clients.map(async (client) => {
        let next = 0;
        await Promise.all(
          Array.from({ length: inFlight }, async () => {
            while (next < posts) {
              next++;
              const sent = performance.now();
              await client.callTool({ name: "send_message", arguments: { to: "agent:sink", text: "throughput" } });
              samples.push(performance.now() - sent);
            }
          }),
        );
      }),
    );
  // Each sender is a fresh process: a thousand posts each, six thousand through the router and the sink.
  await load(1000, []);
  const samples: number[] = [];
  const start = performance.now();
  await load(perSender, samples);
  const seconds = (performance.now() - start) / 1000;
  await Promise.all(clients.map((c) => c.close()));
  return {
    perSecond: (senders.length * perSender) / seconds,
    p99: percentile(samples, 99),
    mean: samples.reduce((sum, sample) => sum + sample, 0) / samples.length,
    inFlight: senders.length * inFlight,
  };
}

export interface InboxReads {
  /** Milliseconds, p50 of a page read (first pages and continuations alternately). */
  readonly p50: number;
  /** The HTTP body of one first page, byte for byte, for the transfer floor (floors.ts). */
  readonly firstPage: string;
}

/** p50 of read_inbox pages (first pages and continuations) over plain fetch, `count` items pending. */
export async function readInboxP50(net: BenchNetwork, count: number, reads: number): Promise<InboxReads> {
  const name = `reader${count}`;
  const first = await net.startDaemon(name);
  await net.stop(first.process);
  fillInbox(first.data, count);
  const reader = await net.startDaemon(name);
  const read = (cursor?: string) => rawToolCall(reader, "read_inbox", cursor === undefined ? {} : { cursor });
  const samples: number[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < WARMUP_CALLS + reads; i++) {
    const start = performance.now();
    const page = await read(i % 2 === 0 ? undefined : cursor);
    if (i >= WARMUP_CALLS) samples.push(performance.now() - start);
    cursor = page.nextCursor as string | undefined;
  }
  const firstPage = await (await rawToolResponse(reader, "read_inbox", {})).text();
  await net.stop(reader.process);
  return { p50: percentile(samples, 50), firstPage };
}

export interface Memory {
  readonly idle: number;
  readonly pending: number;
}

/** RSS of a daemon after start, and of one whose inbox holds `pending` items after it read a page. */
export async function daemonMemory(net: BenchNetwork, pending: number): Promise<Memory> {
  const idle = await net.startDaemon("idle");
  await sleep(2_000);
  const idleRss = rssOf(idle.process.child.pid!);
  const first = await net.startDaemon("full");
  await net.stop(first.process);
  fillInbox(first.data, pending);
  const full = await net.startDaemon("full");
  await rawToolCall(full, "read_inbox", {});
  await sleep(2_000);
  const fullRss = rssOf(full.process.child.pid!);
  await net.stop(idle.process);
  await net.stop(full.process);
  return { idle: idleRss, pending: fullRss };
}

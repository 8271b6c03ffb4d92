/**
 * `npm run bench`: end-to-end figures on this machine, printed as a table. Real router and daemon
 * processes, real SQLite with synchronous=FULL, the official MCP client. Benchmarks never fail on a
 * time; they report it.
 */
import { performance } from "node:perf_hooks";
import { fillInbox } from "./fill-inbox.js";
import { BenchNetwork, mcpClient, percentile } from "./network.js";

interface Row {
  readonly measure: string;
  readonly value: string;
  readonly note: string;
}

const rows: Row[] = [];
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

async function sendLatency(net: BenchNetwork): Promise<void> {
  const alice = await net.startDaemon("alice");
  await net.startDaemon("bob");
  const client = await mcpClient(alice);
  const send = (text: string) => client.callTool({ name: "send_message", arguments: { to: "agent:bob", text } });
  for (let i = 0; i < 50; i++) await send(`warm-up ${i}`);
  const samples: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const start = performance.now();
    await send(`message ${i}`);
    samples.push(performance.now() - start);
  }
  rows.push({
    measure: "certified send latency p50",
    value: fmt(percentile(samples, 50)),
    note: "send_message over MCP: sign, certify, store; 1000 sequential sends",
  });
  rows.push({ measure: "certified send latency p99", value: fmt(percentile(samples, 99)), note: "" });
  await client.close();
}

async function routerThroughput(net: BenchNetwork): Promise<void> {
  const senders = await Promise.all(
    ["sender1", "sender2", "sender3", "sender4", "sender5", "sender6"].map((name) => net.startDaemon(name)),
  );
  await net.startDaemon("sink");
  const clients = await Promise.all(senders.map(mcpClient));
  const perSender = 400;
  const inFlight = 8;
  const start = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (next < perSender) {
            next++;
            await client.callTool({ name: "send_message", arguments: { to: "agent:sink", text: "throughput" } });
          }
        }),
      );
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const total = senders.length * perSender;
  rows.push({
    measure: "posts per second through one router",
    value: `${Math.round(total / seconds)} /s`,
    note: `${senders.length} daemons × ${perSender} posts, ${inFlight} in flight each, into one recipient`,
  });
  await Promise.all(clients.map((c) => c.close()));
}

async function readInboxLatency(net: BenchNetwork, count: number): Promise<void> {
  const name = `reader${count}`;
  const first = await net.startDaemon(name);
  await net.stop(first.process);
  fillInbox(first.data, count);
  const reader = await net.startDaemon(name);
  const client = await mcpClient(reader);
  const read = (cursor?: string) =>
    client.callTool({ name: "read_inbox", arguments: cursor === undefined ? {} : { cursor } });
  for (let i = 0; i < 20; i++) await read();
  const samples: number[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 300; i++) {
    const start = performance.now();
    const result = await read(i % 2 === 0 ? undefined : cursor);
    samples.push(performance.now() - start);
    cursor = (result.structuredContent as { nextCursor?: string }).nextCursor;
  }
  rows.push({
    measure: `read_inbox page latency, ${count.toLocaleString("en")} items`,
    value: `${fmt(percentile(samples, 50))} / ${fmt(percentile(samples, 99))}`,
    note: "p50 / p99 of 300 reads of 50-item pages (first pages and continuations)",
  });
  await client.close();
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes("--quick");
  const only = args.filter((a) => !a.startsWith("--"));
  const wants = (name: string) => only.length === 0 || only.includes(name);
  const net = new BenchNetwork();
  let firewall: { rows: Row[]; section: string } | undefined;
  try {
    await net.startRouter();
    if (wants("latency")) await sendLatency(net);
    if (wants("throughput")) await routerThroughput(net);
    if (wants("router")) {
      const { routerCertifyThroughput } = await import("./router-certify.js");
      rows.push(await routerCertifyThroughput(net.routerUrl));
    }
    if (wants("inbox")) {
      await readInboxLatency(net, 1_000);
      await readInboxLatency(net, 1_000_000);
    }
    if (wants("webhooks")) {
      const { webhookThroughput } = await import("./webhooks.js");
      rows.push(await webhookThroughput(net));
    }
    // The firewall evaluation (bench/firewall/): its rows join the table, its own section follows it.
    if (wants("firewall")) {
      const { firewallBench } = await import("./firewall/firewall-bench.js");
      firewall = await firewallBench(net, { quick });
      rows.push(...firewall.rows);
    }
  } finally {
    await net.close();
  }
  const width = Math.max(...rows.map((r) => r.measure.length));
  const valueWidth = Math.max(...rows.map((r) => r.value.length));
  process.stdout.write(`\n${"measure".padEnd(width)}  ${"value".padEnd(valueWidth)}  note\n`);
  process.stdout.write(`${"-".repeat(width)}  ${"-".repeat(valueWidth)}  ----\n`);
  for (const row of rows)
    process.stdout.write(`${row.measure.padEnd(width)}  ${row.value.padEnd(valueWidth)}  ${row.note}\n`);
  if (firewall !== undefined) process.stdout.write(firewall.section);
}

await main();

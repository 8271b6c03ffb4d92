/**
 * Webhook deliveries per second beside their floor. A daemon whose inbox holds N items subscribes
 * an HTTPS receiver on loopback (a self-signed certificate the daemon trusts through
 * NODE_EXTRA_CA_CERTS; loopback allowed by --unsafe-allow-local-callbacks) and delivers the items
 * one at a time, in inbox order, each signed and retired on 2xx. The anchor is a bare HTTPS POST
 * loop, one in flight, from a process of its own (bench/webhook-loop.ts, as the daemon is one) to
 * the same receiver with bodies of the same size. A second anchor is that loop with one durable
 * SQLite commit (WAL, synchronous=FULL) after each 2xx: the least a consumer that retires each
 * delivered item durably before the next can do. `webhookRounds` runs the three in turn, round
 * after round, and takes each figure's median: a shared VM's slow or fast stretch then falls on
 * ours and on its anchors alike, not on whichever ran in it.
 */
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:https";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import * as z from "zod";
import { fillInbox } from "./fill-inbox.js";
import { cpuMs } from "./meter.js";
import { median, ms, perSecond, row, type Row } from "./table.js";
import { mcpClient, WARMUP_CALLS, type BenchNetwork } from "./network.js";

function selfSignedCertificate(dir: string): { cert: string; key: string; file: string } {
  const file = path.join(dir, "receiver.pem");
  const keyFile = path.join(dir, "receiver.key");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      keyFile,
      "-out",
      file,
    ],
    { stdio: "pipe" },
  );
  return { cert: readFileSync(file, "utf8"), key: readFileSync(keyFile, "utf8"), file };
}

export interface WebhookFigures {
  readonly deliveries: number;
  readonly barePosts: number;
  /** The bare loop with one durable commit after each response. */
  readonly durablePosts: number;
  /** CPU milliseconds of the delivering daemon per delivery (subscription and verification included). */
  readonly cpuPerDelivery: number;
  /** CPU milliseconds of the anchor loop's process per post + durable commit (the receiver's excluded, as the daemon's is). */
  readonly cpuPerDurablePost: number;
  /** The platform floor (bench/skeleton-webhook.ts): its deliveries per second and CPU per delivery. */
  readonly skeletonDeliveries: number;
  readonly cpuPerSkeletonDelivery: number;
}

const here = path.dirname(fileURLToPath(import.meta.url));

/** Runs a bench script (webhook-loop.js, skeleton-webhook.js) as a child and reads its one line of figures. */
function runChild<T>(script: string, args: string[]): Promise<T> {
  const child = spawn(process.execPath, [path.join(here, script), ...args], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out) as T) : reject(new Error(`${script} exited (${code})`)),
    );
  });
}

/** `name` is the delivering daemon's: each round registers a daemon of its own. */
export async function webhookRates(net: BenchNetwork, items: number, name: string): Promise<WebhookFigures> {
  const tls = selfSignedCertificate(net.root);
  // The first WARMUP_CALLS deliveries warm the delivering daemon up; the measured ones follow them.
  const warm = WARMUP_CALLS;
  let delivered = 0;
  let bodyBytes = 0;
  let start = 0;
  let cpuStart = 0;
  let daemonPid = 0;
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => (done = resolve));
  const receiver = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const body = JSON.parse(raw.toString()) as { type?: string; challenge?: string; bare?: boolean };
      res.writeHead(200, { "content-type": "application/json" });
      if (body.type === "verification") return res.end(JSON.stringify({ challenge: body.challenge }));
      res.end("{}");
      if (body.bare === true) return;
      bodyBytes = raw.byteLength;
      if (++delivered === warm) {
        start = performance.now();
        cpuStart = cpuMs(daemonPid);
      }
      if (delivered === warm + items) done();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const port = (receiver.address() as { port: number }).port;
  try {
    const flags = ["--unsafe-allow-local-callbacks"];
    const env = { NODE_EXTRA_CA_CERTS: tls.file };
    const first = await net.startDaemon(name, flags, env);
    await net.stop(first.process);
    fillInbox(first.data, warm + items);
    const hooks = await net.startDaemon(name, flags, env);
    daemonPid = hooks.process.child.pid!;
    const client = await mcpClient(hooks);
    await client.request(
      {
        method: "events/subscribe",
        params: {
          name: "org.social-harness/inbox.item",
          arguments: {},
          delivery: {
            mode: "webhook",
            url: `https://127.0.0.1:${port}/hook`,
            secret: `whsec_${randomBytes(32).toString("base64")}`,
          },
        },
      },
      z.looseObject({}),
    );
    await finished;
    const deliveries = items / ((performance.now() - start) / 1000);
    const cpuPerDelivery = (cpuMs(daemonPid) - cpuStart) / items;
    await client.close();
    await net.stop(hooks.process);

    // Each round's anchors start from databases of their own.
    const floors = mkdtempSync(path.join(net.root, "webhook-floors-"));
    // The anchors run in a process of their own, as the delivering daemon does: each round trip
    // then costs the same two wake-ups across processes that every deliverer's does.
    const anchors = await runChild<{ barePosts: number; durablePosts: number; cpuPerDurablePost: number }>(
      "webhook-loop.js",
      [String(port), tls.file, String(bodyBytes), String(warm), String(items), path.join(floors, "webhook-floor.db")],
    );
    const { barePosts, durablePosts, cpuPerDurablePost } = anchors;
    // The platform floor: a deliverer doing only what the seed requires (skeleton-webhook.ts).
    const skeleton = await runChild<{ deliveries: number; cpuPerDelivery: number }>("skeleton-webhook.js", [
      String(port),
      tls.file,
      floors,
      String(bodyBytes),
      String(warm),
      String(items),
    ]);
    return {
      deliveries,
      barePosts,
      durablePosts,
      cpuPerDelivery,
      cpuPerDurablePost,
      skeletonDeliveries: skeleton.deliveries,
      cpuPerSkeletonDelivery: skeleton.cpuPerDelivery,
    };
  } finally {
    receiver.close();
  }
}

/**
 * `rounds` rounds of webhookRates (ours, the loops, the skeleton, in that order each round); each
 * figure is its median over the rounds. `log` is told every round's figures.
 */
export async function webhookRounds(
  net: BenchNetwork,
  items: number,
  rounds: number,
  log: (line: string) => void,
): Promise<WebhookFigures> {
  const all: WebhookFigures[] = [];
  for (let round = 1; round <= rounds; round++) {
    const figures = await webhookRates(net, items, `hooks${round}`);
    all.push(figures);
    log(
      `webhooks round ${round}: ours ${figures.deliveries.toFixed(0)}/s ${figures.cpuPerDelivery.toFixed(3)} ms, ` +
        `loop + commit ${figures.durablePosts.toFixed(0)}/s ${figures.cpuPerDurablePost.toFixed(3)} ms, ` +
        `skeleton ${figures.skeletonDeliveries.toFixed(0)}/s ${figures.cpuPerSkeletonDelivery.toFixed(3)} ms`,
    );
  }
  const of = (field: keyof WebhookFigures) => median(all.map((figures) => figures[field]));
  return {
    deliveries: of("deliveries"),
    barePosts: of("barePosts"),
    durablePosts: of("durablePosts"),
    cpuPerDelivery: of("cpuPerDelivery"),
    cpuPerDurablePost: of("cpuPerDurablePost"),
    skeletonDeliveries: of("skeletonDeliveries"),
    cpuPerSkeletonDelivery: of("cpuPerSkeletonDelivery"),
  };
}

/** The section's rows: ours beside the bare loop, the loop + commit and the platform floor. */
export function webhookRows(hooks: WebhookFigures): Row[] {
  const rate = "webhook deliveries/s (signed, 1 in flight)";
  const cpu = "CPU per webhook delivery (the delivering daemon)";
  const bare = { name: "bare HTTPS POST loop, 1 in flight, same receiver", value: hooks.barePosts };
  const durable = { name: "the same loop + one durable SQLite commit each", value: hooks.durablePosts };
  const skeleton = {
    name: "platform floor (bench/skeleton-webhook.ts, same receiver)",
    value: hooks.skeletonDeliveries,
  };
  return [
    row(rate, hooks.deliveries, perSecond, bare, "≥ 0.8×"),
    row(rate, hooks.deliveries, perSecond, durable, "≥ 0.8×"),
    row(
      cpu,
      hooks.cpuPerDelivery,
      ms,
      { name: "CPU per post + durable commit of that loop", value: hooks.cpuPerDurablePost },
      "≤ 1.25×",
    ),
    row(rate, hooks.deliveries, perSecond, skeleton, "the nearest achievable"),
    row(
      "platform floor (skeleton deliverer)",
      hooks.skeletonDeliveries,
      perSecond,
      durable,
      "(the floor against the anchor)",
    ),
    row(
      cpu,
      hooks.cpuPerDelivery,
      ms,
      { name: "CPU per delivery of the skeleton deliverer", value: hooks.cpuPerSkeletonDelivery },
      "the nearest achievable",
    ),
  ];
}

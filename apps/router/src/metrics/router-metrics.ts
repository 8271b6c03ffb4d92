/**
 * The router's Prometheus metrics (issue 19), served where `--metrics-listen` says (loopback by
 * default). Labels come from closed vocabularies only (LinkRefusal reasons, proposal outcomes),
 * never an agent name or conversation key. Each label set is bound to a slot once, so answering a
 * proposal costs an array increment and a short bucket loop; the link count is read at scrape time.
 */
import { createServer, type Server } from "node:http";
import { LinkRefusalSchema, SlotCounter, SlotHistogram } from "@social-harness/protocol";
import { Gauge, Registry, type Metric } from "prom-client";
import type { BatchPlace } from "../conversations/append-writer.js";

const PREFIX = "social_harness_router_";
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const OUTCOMES = ["certified", "head-moved", "refused"] as const;
/** A group commit's duration: its fsync alone is 0.1-0.5 ms on the disks measured (docs/performance.md). */
const COMMIT_BUCKETS = [0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
/** Appends a group commit holds: one up to the batcher's 256. */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
const PLACES = ["loop", "thread", "pool"] as const satisfies readonly BatchPlace[];
const REASONS = LinkRefusalSchema.options;

export type ProposalOutcome = (typeof OUTCOMES)[number];

export class RouterMetrics {
  readonly registry = new Registry();
  private readonly certified = new SlotCounter(
    `${PREFIX}certified_records_total`,
    "Records the router committed and certified (posts and genesis records).",
  );
  private readonly refusals = new SlotCounter(
    `${PREFIX}refusals_total`,
    "Proposals and group openings the router refused, by LinkRefusal reason.",
    REASONS.map((reason) => ({ reason })),
  );
  private readonly reasonSlots = new Map<string, number>(REASONS.map((reason, i) => [reason, i]));
  private readonly seconds = new SlotHistogram(
    `${PREFIX}certify_duration_seconds`,
    "Time from a proposal's arrival to the router's answer (certified, head moved or refused).",
    LATENCY_BUCKETS,
    OUTCOMES.map((outcome) => ({ outcome })),
  );

  private readonly batchAppends = new SlotHistogram(
    `${PREFIX}commit_batch_appends`,
    "Appends (proposals, group openings) each group commit held: one fsync certifies them all.",
    BATCH_BUCKETS,
  );
  private readonly commitSeconds = new SlotHistogram(
    `${PREFIX}commit_duration_seconds`,
    "Time of each group commit, from its start until it is durable (its fsync included), by where it ran: " +
      "the event loop or the writer thread (SQLite), a pool connection (PostgreSQL).",
    COMMIT_BUCKETS,
    PLACES.map((place) => ({ place })),
  );

  constructor(links: () => number) {
    // prom-client formats any metric with this shape; its own types name only its classes.
    for (const metric of [this.certified, this.refusals, this.seconds, this.batchAppends, this.commitSeconds])
      this.registry.registerMetric(metric as unknown as Metric);
    new Gauge({
      name: `${PREFIX}links`,
      help: "Daemons linked to this router now (authenticated sessions).",
      registers: [this.registry],
      collect() {
        this.set(links());
      },
    });
  }

  /** A proposal or group opening was answered after `seconds`. */
  answered(outcome: ProposalOutcome, reason: string | undefined, seconds: number): void {
    this.seconds.observe(OUTCOMES.indexOf(outcome), seconds);
    if (outcome === "certified") this.certified.inc();
    else if (outcome === "refused" && reason !== undefined) {
      const slot = this.reasonSlots.get(reason);
      if (slot !== undefined) this.refusals.inc(slot);
    }
  }

  /** A group commit became durable (AppendBatcher's observer). */
  committed(appends: number, seconds: number, place: BatchPlace): void {
    this.batchAppends.observe(0, appends);
    this.commitSeconds.observe(PLACES.indexOf(place), seconds);
  }
}

/** Serves `/metrics` on its own HTTP server; resolves with its base URL. */
export async function serveMetrics(
  metrics: RouterMetrics,
  host: string,
  port: number,
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url !== "/metrics") return void res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    metrics.registry.metrics().then(
      (body) => res.writeHead(200, { "content-type": metrics.registry.contentType }).end(body),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === "object" && address !== null ? address.port : port;
  return { url: `http://${host.includes(":") ? `[${host}]` : host}:${bound}`, server };
}

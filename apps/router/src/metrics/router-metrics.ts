/**
 * The router's Prometheus metrics (issue 19), served where `--metrics-listen` says (loopback by
 * default). Labels come from closed vocabularies only (LinkRefusal reasons, proposal outcomes),
 * never an agent name or conversation key. Children are bound once, so a proposal costs one map
 * lookup, one increment and one histogram observation; the link count is read at scrape time.
 */
import { createServer, type Server } from "node:http";
import { LinkRefusalSchema } from "@social-harness/protocol";
import { Counter, Gauge, Histogram, Registry, type Counter as C, type Histogram as H } from "prom-client";

const PREFIX = "social_harness_router_";
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export type ProposalOutcome = "certified" | "head-moved" | "refused";

export class RouterMetrics {
  readonly registry = new Registry();
  private readonly certified: Counter;
  private readonly refusals = new Map<string, C.Internal>();
  private readonly seconds: Record<ProposalOutcome, H.Internal<string>>;

  constructor(links: () => number) {
    const registers = [this.registry];
    this.certified = new Counter({
      name: `${PREFIX}certified_records_total`,
      help: "Records the router committed and certified (posts and genesis records).",
      registers,
    });
    const refusals = new Counter({
      name: `${PREFIX}refusals_total`,
      help: "Proposals and group openings the router refused, by LinkRefusal reason.",
      labelNames: ["reason"],
      registers,
    });
    for (const reason of LinkRefusalSchema.options) {
      const child = refusals.labels({ reason });
      child.inc(0);
      this.refusals.set(reason, child);
    }
    const seconds = new Histogram({
      name: `${PREFIX}certify_duration_seconds`,
      help: "Time from a proposal's arrival to the router's answer (certified, head moved or refused).",
      labelNames: ["outcome"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    for (const outcome of ["certified", "head-moved", "refused"]) seconds.zero({ outcome });
    this.seconds = {
      certified: seconds.labels({ outcome: "certified" }),
      "head-moved": seconds.labels({ outcome: "head-moved" }),
      refused: seconds.labels({ outcome: "refused" }),
    };
    new Gauge({
      name: `${PREFIX}links`,
      help: "Daemons linked to this router now (authenticated sessions).",
      registers,
      collect() {
        this.set(links());
      },
    });
  }

  /** A proposal or group opening was answered after `seconds`. */
  answered(outcome: ProposalOutcome, reason: string | undefined, seconds: number): void {
    this.seconds[outcome].observe(seconds);
    if (outcome === "certified") this.certified.inc();
    else if (outcome === "refused" && reason !== undefined) this.refusals.get(reason)?.inc();
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

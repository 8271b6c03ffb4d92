/**
 * The daemon's Prometheus metrics (issue 19), served at /metrics behind the owner token. Every
 * label takes values from a closed vocabulary (send reasons, directions, middleware kinds,
 * decisions, outcomes), never a name, conversation, id or content. Every label set is bound to a
 * slot once, here, so a hot-path call is an array increment; the gauges are read at scrape time.
 */
import { SEND_ERROR_REASONS, SlotCounter, SlotHistogram, type ExposedMetric } from "@social-harness/protocol";
import { Gauge, Registry, type Metric } from "prom-client";
import type { Assessment } from "../firewall/engine.js";

const PREFIX = "social_harness_daemon_";
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20];

export type WebhookOutcome = "delivered" | "failed" | "suspended";
type Direction = Assessment["direction"];
type MiddlewareKind = Assessment["verdicts"][number]["kind"];
type MiddlewareDecision = "allow" | "hold" | "refuse" | "error";

const SEND_REASONS = ["none", ...SEND_ERROR_REASONS, "collective-failed", "firewall-refused"] as const;
const DIRECTIONS: readonly Direction[] = ["inbound", "outbound"];
const KINDS: readonly MiddlewareKind[] = ["rules", "model", "rate"];
const DECISIONS: readonly MiddlewareDecision[] = ["allow", "hold", "refuse", "error"];
const WEBHOOK_OUTCOMES: readonly WebhookOutcome[] = ["delivered", "failed", "suspended"];

/** Read at scrape time from the database, so nothing on the write paths keeps them. */
export interface DaemonGauges {
  inboxPending(): Promise<number>;
  held(): Promise<number>;
  suspendedSubscriptions(): Promise<number>;
  /** fdatasyncs of the daemon's WAL so far (DaemonStore.fsyncs). */
  walFsyncs(): number;
}

const outcomeOf = (reason: string) => (reason === "none" ? "sent" : "refused");

export class DaemonMetrics {
  readonly registry = new Registry();
  private readonly sends = new SlotCounter(
    `${PREFIX}sends_total`,
    "send_message calls by outcome and SendError reason (reason none when sent).",
    SEND_REASONS.map((reason) => ({ outcome: outcomeOf(reason), reason })),
  );
  private readonly sendSeconds = new SlotHistogram(
    `${PREFIX}send_duration_seconds`,
    "Time from a send_message call to its result or refusal.",
    LATENCY_BUCKETS,
    [{ outcome: "sent" }, { outcome: "refused" }],
  );
  private readonly sendSlots = new Map<string, { count: number; seconds: number }>(
    SEND_REASONS.map((reason, i) => [reason, { count: i, seconds: reason === "none" ? 0 : 1 }]),
  );
  private readonly acks = new SlotCounter(
    `${PREFIX}acknowledgments_total`,
    "Inbox deliveries acknowledged (acknowledge_delivery, owner discards, webhook receipts).",
  );
  private readonly decisions = new SlotCounter(
    `${PREFIX}firewall_decisions_total`,
    "Firewall middleware verdicts by direction, middleware kind and decision (error: the middleware failed).",
    DIRECTIONS.flatMap((direction) =>
      KINDS.flatMap((middleware) => DECISIONS.map((decision) => ({ direction, middleware, decision }))),
    ),
  );
  private readonly judgeSeconds = new SlotHistogram(
    `${PREFIX}firewall_judge_duration_seconds`,
    "Latency of the firewall's model judge (model middlewares), failures included.",
    LATENCY_BUCKETS,
  );
  private readonly judgeErrors = new SlotCounter(
    `${PREFIX}firewall_judge_errors_total`,
    "Model judge calls that failed or timed out.",
  );
  private readonly webhooks = new SlotCounter(
    `${PREFIX}webhook_deliveries_total`,
    "Webhook delivery attempts by outcome (suspended: the failure that suspended the registration).",
    WEBHOOK_OUTCOMES.map((outcome) => ({ outcome })),
  );
  private readonly retries = new SlotCounter(
    `${PREFIX}webhook_retries_total`,
    "Webhook delivery attempts that retried an earlier failed attempt.",
  );

  constructor(gauges: DaemonGauges) {
    const metrics: ExposedMetric[] = [
      this.sends,
      this.sendSeconds,
      this.acks,
      this.decisions,
      this.judgeSeconds,
      this.judgeErrors,
      this.webhooks,
      this.retries,
    ];
    const fsyncs = {
      name: `${PREFIX}wal_fsyncs_total`,
      help: "fdatasyncs of the daemon's WAL; one covers every durable commit made before it.",
      type: "counter",
      aggregator: "sum",
      get() {
        const { name, help, type, aggregator } = this;
        return Promise.resolve({ name, help, type, aggregator, values: [{ value: gauges.walFsyncs(), labels: {} }] });
      },
    } as const satisfies ExposedMetric;
    metrics.push(fsyncs);
    // prom-client formats any metric with this shape; its own types name only its classes.
    for (const metric of metrics) this.registry.registerMetric(metric as unknown as Metric);
    const registers = [this.registry];
    const gauge = (name: string, help: string, read: () => Promise<number>) =>
      new Gauge({
        name: `${PREFIX}${name}`,
        help,
        registers,
        async collect() {
          this.set(await read());
        },
      });
    gauge("inbox_pending", "Inbox items pending (not yet acknowledged).", () => gauges.inboxPending());
    gauge("inbox_held", "Items held for the owner (by trust or the firewall).", () => gauges.held());
    gauge("webhook_subscriptions_suspended", "Webhook registrations suspended.", () => gauges.suspendedSubscriptions());
  }

  /** A send_message call ended: `reason` is "none" when it was sent, else its refusal reason. */
  sendFinished(reason: string, seconds: number): void {
    const slot = this.sendSlots.get(reason) ?? this.sendSlots.get("outcome-unknown")!;
    this.sends.inc(slot.count);
    this.sendSeconds.observe(slot.seconds, seconds);
  }

  acknowledged(): void {
    this.acks.inc();
  }

  /** A live firewall check ran: one decision per middleware, and the judge's latency for model ones. */
  assessed(assessment: Pick<Assessment, "direction" | "verdicts">): void {
    const base = DIRECTIONS.indexOf(assessment.direction) * KINDS.length * DECISIONS.length;
    for (const verdict of assessment.verdicts) {
      const failed = verdict.error !== undefined;
      const decision = failed ? 3 : DECISIONS.indexOf(verdict.decision);
      this.decisions.inc(base + KINDS.indexOf(verdict.kind) * DECISIONS.length + decision);
      if (verdict.kind !== "model") continue;
      this.judgeSeconds.observe(0, verdict.latencyUs / 1e6);
      if (failed) this.judgeErrors.inc();
    }
  }

  webhookAttempted(outcome: WebhookOutcome, retry: boolean): void {
    this.webhooks.inc(WEBHOOK_OUTCOMES.indexOf(outcome));
    if (retry) this.retries.inc();
  }

  /** The Prometheus text exposition. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/**
 * The daemon's Prometheus metrics (issue 19), served at /metrics behind the owner token. Every
 * label takes values from a closed vocabulary (send reasons, directions, middleware kinds,
 * decisions, outcomes), never a name, conversation, id or content. Label children are bound once
 * here, so a hot-path call is a map lookup and an increment; the gauges are read at scrape time.
 */
import { SEND_ERROR_REASONS } from "@social-harness/protocol";
import type { Assessment } from "../firewall/engine.js";
import { Counter, Gauge, Histogram, Registry, type Counter as C, type Histogram as H } from "prom-client";

const PREFIX = "social_harness_daemon_";
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20];

export type SendOutcome = "sent" | "refused";
export type WebhookOutcome = "delivered" | "failed" | "suspended";
export type Direction = "inbound" | "outbound";
export type MiddlewareKind = "rules" | "model" | "rate";
export type MiddlewareDecision = "allow" | "hold" | "refuse" | "error";

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
}

/** A child exported as 0 before its first increment, so rate() sees every series from the start. */
function zeroed(child: C.Internal): C.Internal {
  child.inc(0);
  return child;
}

export class DaemonMetrics {
  readonly registry = new Registry();
  private readonly sends = new Map<string, { count: C.Internal; seconds: H.Internal<string> }>();
  private readonly acks: Counter;
  private readonly decisions: Record<Direction, Record<MiddlewareKind, Record<MiddlewareDecision, C.Internal>>>;
  private readonly judgeSeconds: Histogram;
  private readonly judgeErrors: Counter;
  private readonly webhooks = new Map<string, C.Internal>();
  private readonly retries: Counter;

  constructor(gauges: DaemonGauges) {
    const registers = [this.registry];
    const sendCount = new Counter({
      name: `${PREFIX}sends_total`,
      help: "send_message calls by outcome and SendError reason (reason none when sent).",
      labelNames: ["outcome", "reason"],
      registers,
    });
    const sendSeconds = new Histogram({
      name: `${PREFIX}send_duration_seconds`,
      help: "Time from a send_message call to its result or refusal.",
      labelNames: ["outcome"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    for (const reason of SEND_REASONS) {
      const outcome: SendOutcome = reason === "none" ? "sent" : "refused";
      this.sends.set(reason, {
        count: sendCount.labels({ outcome, reason }),
        seconds: sendSeconds.labels({ outcome }),
      });
      zeroed(this.sends.get(reason)!.count);
    }
    sendSeconds.zero({ outcome: "sent" });
    sendSeconds.zero({ outcome: "refused" });
    this.acks = new Counter({
      name: `${PREFIX}acknowledgments_total`,
      help: "Inbox deliveries acknowledged (acknowledge_delivery, owner discards, webhook receipts).",
      registers,
    });
    const decisions = new Counter({
      name: `${PREFIX}firewall_decisions_total`,
      help: "Firewall middleware verdicts by direction, middleware kind and decision (error: the middleware failed).",
      labelNames: ["direction", "middleware", "decision"],
      registers,
    });
    const bind = <K extends string, V>(keys: readonly K[], value: (key: K) => V) =>
      Object.fromEntries(keys.map((key) => [key, value(key)])) as Record<K, V>;
    this.decisions = bind(DIRECTIONS, (direction) =>
      bind(KINDS, (middleware) =>
        bind(DECISIONS, (decision) => zeroed(decisions.labels({ direction, middleware, decision }))),
      ),
    );
    this.judgeSeconds = new Histogram({
      name: `${PREFIX}firewall_judge_duration_seconds`,
      help: "Latency of the firewall's model judge (model middlewares), failures included.",
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.judgeErrors = new Counter({
      name: `${PREFIX}firewall_judge_errors_total`,
      help: "Model judge calls that failed or timed out.",
      registers,
    });
    const webhooks = new Counter({
      name: `${PREFIX}webhook_deliveries_total`,
      help: "Webhook delivery attempts by outcome (suspended: the failure that suspended the registration).",
      labelNames: ["outcome"],
      registers,
    });
    for (const outcome of WEBHOOK_OUTCOMES) this.webhooks.set(outcome, zeroed(webhooks.labels({ outcome })));
    this.retries = new Counter({
      name: `${PREFIX}webhook_retries_total`,
      help: "Webhook delivery attempts that retried an earlier failed attempt.",
      registers,
    });
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
    const child = this.sends.get(reason) ?? this.sends.get("outcome-unknown")!;
    child.count.inc();
    child.seconds.observe(seconds);
  }

  acknowledged(): void {
    this.acks.inc();
  }

  /** A live firewall check ran: one decision per middleware, and the judge's latency for model ones. */
  assessed(assessment: Pick<Assessment, "direction" | "verdicts">): void {
    const byKind = this.decisions[assessment.direction];
    for (const verdict of assessment.verdicts) {
      const failed = verdict.error !== undefined;
      byKind[verdict.kind][failed ? "error" : verdict.decision].inc();
      if (verdict.kind !== "model") continue;
      this.judgeSeconds.observe(verdict.latencyUs / 1e6);
      if (failed) this.judgeErrors.inc();
    }
  }

  webhookAttempted(outcome: WebhookOutcome, retry: boolean): void {
    this.webhooks.get(outcome)?.inc();
    if (retry) this.retries.inc();
  }

  /** The Prometheus text exposition. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

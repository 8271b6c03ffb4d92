"use client";
/**
 * Webhook delivery health on the Overview, one card per registration: its state (delivering,
 * failing, suspended, terminally rejected), deliveries, failures and retries per interval, and
 * the mean attempt latency. Never the callback URL or secret (SPEC §11).
 */
import { memo } from "react";
import type { OverviewSummary } from "@/trpc/owner-api";
import { TimeChart } from "./time-chart";

type Health = OverviewSummary["webhooks"][number];

function stateOf(subscription: Health): { label: string; tone: string } {
  if (subscription.terminalStatus !== null)
    return { label: `rejected (${subscription.terminalStatus}), suspended`, tone: "bg-danger-soft text-danger" };
  if (subscription.state === "suspended") return { label: "suspended", tone: "bg-danger-soft text-danger" };
  if (subscription.state === "revoked") return { label: "revoked", tone: "bg-surface-sunken text-ink-muted" };
  if (subscription.failingSince !== null)
    return { label: `failing (${subscription.lastError ?? "error"})`, tone: "bg-warn-soft text-warn" };
  return { label: "delivering", tone: "bg-ok-soft text-ok" };
}

function meanOf(values: readonly (number | null)[]): number | undefined {
  const present = values.filter((v): v is number => v !== null);
  return present.length === 0 ? undefined : Math.round(present.reduce((a, b) => a + b, 0) / present.length);
}

function WebhookHealthImpl({
  name,
  subscriptions,
  from,
  intervalMs,
}: {
  name: string;
  subscriptions: readonly Health[];
  from: number;
  intervalMs: number;
}) {
  if (subscriptions.length === 0)
    return (
      <section
        aria-labelledby="webhooks-title"
        className="rounded-xl border border-line bg-surface p-4 shadow-sm"
        data-testid="webhook-health"
      >
        <h3 id="webhooks-title" className="text-sm font-semibold">
          Webhook deliveries
        </h3>
        <p className="mt-3 rounded-md border border-dashed border-line-strong px-3 py-6 text-center text-sm text-ink-muted">
          When a host subscribes to {name}&rsquo;s inbox by webhook, each registration&rsquo;s deliveries, failures,
          retries and latency appear here.
        </p>
      </section>
    );
  return (
    <>
      {subscriptions.map((subscription) => {
        const state = stateOf(subscription);
        const latency = meanOf(subscription.series.meanMs);
        const retries = subscription.series.retries.reduce((a, b) => a + b, 0);
        return (
          <div key={subscription.id} className="space-y-1" data-testid="webhook-health">
            <p className="flex flex-wrap items-center gap-2 text-xs text-ink-muted">
              <span className={`rounded-full px-2 py-0.5 font-medium ${state.tone}`} data-testid="webhook-state">
                {state.label}
              </span>
              <span className="font-mono break-all">{subscription.id.slice(0, 16)}…</span>
              <span>{subscription.deliveredTotal} delivered in all</span>
              <span data-testid="webhook-retries">{retries} retries in this window</span>
              {latency !== undefined && <span>mean attempt {latency} ms</span>}
            </p>
            <TimeChart
              id={`webhook-${subscription.id}`}
              title="Webhook deliveries"
              empty="Delivery attempts to this registration will appear here."
              series={[
                { key: "delivered", label: "delivered", color: "#15803d", values: subscription.series.delivered },
                { key: "failed", label: "failed", color: "#b91c1c", values: subscription.series.failed },
              ]}
              mode="bars"
              from={from}
              intervalMs={intervalMs}
            />
          </div>
        );
      })}
    </>
  );
}

export const WebhookHealth = memo(WebhookHealthImpl);

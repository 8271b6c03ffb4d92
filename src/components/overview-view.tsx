"use client";
/**
 * A daemon's Overview (issue 19), its landing page: messages by kind, inbox pending and held,
 * firewall decisions and the judge's latency, webhook delivery health, and the conversation map,
 * over the last hour, day or week. Polled every five seconds; charts whose series did not change
 * keep their elements, and the newest bucket is the only one a quiet poll moves.
 */
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/trpc/daemon-trpc";
import type { OverviewSummary } from "@/trpc/owner-api";
import { ConversationMap } from "./conversation-map";
import { QueryProblem } from "./query-problem";
import { TimeChart, type Series } from "./time-chart";
import { WebhookHealth } from "./webhook-health";

const POLL_MS = 5_000;
const WINDOWS = [
  { value: "hour", label: "Last hour", per: "minute" },
  { value: "day", label: "Last day", per: "15 minutes" },
  { value: "week", label: "Last week", per: "2 hours" },
] as const;
type WindowName = (typeof WINDOWS)[number]["value"];

const KIND_COLORS = { direct: "#4338ca", group: "#0891b2", gather: "#c026d3", all_gather: "#ea580c" } as const;
const KIND_LABELS = { direct: "direct", group: "group", gather: "gather", all_gather: "all_gather" } as const;
const DECISION_COLORS = {
  allow: "#15803d",
  guidance: "#65a30d",
  hold: "#b45309",
  refuse: "#b91c1c",
  error: "#6b7280",
} as const;
const DECISION_LABELS = {
  allow: "allow",
  guidance: "allow with guidance",
  hold: "hold",
  refuse: "refuse",
  error: "error",
} as const;

function kindSeries(counts: OverviewSummary["messages"]["sent"]): Series[] {
  return (Object.keys(KIND_COLORS) as (keyof typeof KIND_COLORS)[]).map((key) => ({
    key,
    label: KIND_LABELS[key],
    color: KIND_COLORS[key],
    values: counts[key],
  }));
}

function decisionSeries(counts: OverviewSummary["firewall"]["inbound"]): Series[] {
  return (Object.keys(DECISION_COLORS) as (keyof typeof DECISION_COLORS)[]).map((key) => ({
    key,
    label: DECISION_LABELS[key],
    color: DECISION_COLORS[key],
    values: counts[key],
  }));
}

/** The Overview of the daemon `name`, whose tRPC provider encloses it. */
export function OverviewView({ name }: { name: string }) {
  const trpc = useTRPC();
  const [windowName, setWindowName] = useState<WindowName>("hour");
  const summary = useQuery(trpc.overview.summary.queryOptions({ window: windowName }, { refetchInterval: POLL_MS }));
  const chosen = WINDOWS.find((w) => w.value === windowName)!;
  const data = summary.data;
  return (
    <section aria-labelledby="overview-title" className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="overview-title" className="text-lg font-semibold">
          Overview
        </h2>
        <div role="radiogroup" aria-label="Time window" className="flex rounded-md border border-line bg-surface p-0.5">
          {WINDOWS.map((w) => (
            <button
              key={w.value}
              type="button"
              role="radio"
              aria-checked={w.value === windowName}
              onClick={() => setWindowName(w.value)}
              className={`rounded px-2.5 py-1 text-sm ${
                w.value === windowName ? "bg-accent text-white" : "text-ink-muted hover:text-ink"
              }`}
            >
              {w.label}
            </button>
          ))}
        </div>
      </div>
      <p className="text-sm text-ink-muted">
        Drawn from {name}&rsquo;s own history, inbox, holds, firewall audit and webhook attempts, per {chosen.per}.
        Refreshes every few seconds.
      </p>
      {summary.isPending && <p className="text-ink-muted">Loading the overview…</p>}
      {summary.isError && <QueryProblem what="the overview" error={summary.error} />}
      {data !== undefined && (
        <div className="grid gap-4 lg:grid-cols-2">
          <ConversationMap daemon={name} nodes={data.map.nodes} edges={data.map.edges} />
          <TimeChart
            id="received"
            title="Messages received"
            empty={`Messages other agents send ${name} will appear here, per ${chosen.per}, by kind.`}
            series={kindSeries(data.messages.received)}
            mode="bars"
            from={data.from}
            intervalMs={data.intervalMs}
          />
          <TimeChart
            id="sent"
            title="Messages sent"
            empty={`Messages ${name} sends will appear here, per ${chosen.per}, by kind.`}
            series={kindSeries(data.messages.sent)}
            mode="bars"
            from={data.from}
            intervalMs={data.intervalMs}
          />
          <TimeChart
            id="inbox"
            title="Inbox pending and held"
            empty={`How many items wait in ${name}'s inbox, and how many are held for you, will appear here.`}
            series={[
              { key: "pending", label: "pending", color: "#4338ca", values: data.inbox.pending },
              { key: "held", label: "held", color: "#b45309", values: data.inbox.held },
            ]}
            mode="lines"
            from={data.from}
            intervalMs={data.intervalMs}
          />
          <TimeChart
            id="firewall-inbound"
            title="Firewall decisions, inbound"
            empty="Once a firewall policy checks what arrives, its decisions appear here."
            series={decisionSeries(data.firewall.inbound)}
            mode="bars"
            from={data.from}
            intervalMs={data.intervalMs}
          />
          <TimeChart
            id="firewall-outbound"
            title="Firewall decisions, outbound"
            empty={`Once a firewall policy checks what ${name} sends, its decisions appear here.`}
            series={decisionSeries(data.firewall.outbound)}
            mode="bars"
            from={data.from}
            intervalMs={data.intervalMs}
          />
          <TimeChart
            id="judge"
            title="Firewall judge latency"
            empty="When a policy has a model judge, its mean and slowest latency appear here."
            series={[
              { key: "mean", label: "mean", color: "#4338ca", values: data.firewall.judge.meanMs },
              { key: "max", label: "slowest", color: "#b91c1c", values: data.firewall.judge.maxMs },
            ]}
            mode="lines"
            from={data.from}
            intervalMs={data.intervalMs}
            unit="ms"
          />
          <WebhookHealth name={name} subscriptions={data.webhooks} from={data.from} intervalMs={data.intervalMs} />
        </div>
      )}
    </section>
  );
}

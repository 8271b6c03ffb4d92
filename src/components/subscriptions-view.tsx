"use client";
/**
 * A daemon's webhook subscriptions, newest first, polled every two seconds so delivery state and
 * suspensions appear on their own. The owner API never returns a callback URL or a secret, so the
 * console cannot show them either.
 */
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/daemon-trpc";
import { QueryProblem } from "./query-problem";
import { SubscriptionCard } from "./subscription-card";

const POLL_MS = 2_000;

/** The subscriptions of the daemon whose tRPC provider encloses it. */
export function SubscriptionsView() {
  const trpc = useTRPC();
  const list = useQuery(trpc.subscriptions.list.queryOptions(undefined, { refetchInterval: POLL_MS }));
  const subscriptions = list.data?.subscriptions;
  return (
    <section aria-labelledby="subscriptions-title" className="space-y-4">
      <div className="space-y-1">
        <h2 id="subscriptions-title" className="text-lg font-semibold">
          Webhook subscriptions
        </h2>
        <p className="text-sm text-ink-muted">
          A subscribed host receives each inbox item at its callback, signed; one subscription owns the inbox until it
          is revoked. Revoking keeps pending items in the inbox.
        </p>
      </div>
      {list.isPending && <p className="text-ink-muted">Loading the subscriptions…</p>}
      {list.isError && <QueryProblem what="the subscriptions" error={list.error} />}
      {subscriptions !== undefined && subscriptions.length === 0 && (
        <p
          className="rounded-xl border border-dashed border-line-strong bg-surface px-4 py-8 text-center text-ink-muted"
          data-testid="subscriptions-empty"
        >
          No webhook subscriptions. A host registers one with <code className="font-mono">events/subscribe</code>.
        </p>
      )}
      {subscriptions !== undefined && subscriptions.length > 0 && (
        <ol className="space-y-3" aria-label="Webhook subscriptions, newest first">
          {subscriptions.map((subscription) => (
            <li key={subscription.id}>
              <SubscriptionCard subscription={subscription} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

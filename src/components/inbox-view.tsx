"use client";
/**
 * A daemon's inbox: pending items newest first, polled every two seconds so new deliveries
 * appear on their own, with paging to older items. Each item can be discarded.
 */
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/trpc/daemon-trpc";
import { InboxItemCard } from "./inbox-item-card";
import { QueryProblem } from "./query-problem";

const PAGE_SIZE = 50;
const POLL_MS = 2_000;

/** The inbox of the daemon whose tRPC provider encloses it. */
export function InboxView() {
  const trpc = useTRPC();
  // Cursors of the pages walked through; the last is shown, undefined is the newest page.
  const [cursors, setCursors] = useState<readonly (number | undefined)[]>([undefined]);
  const before = cursors.at(-1);
  const inbox = useQuery(
    trpc.inbox.list.queryOptions(
      { before, limit: PAGE_SIZE },
      { refetchInterval: POLL_MS, placeholderData: keepPreviousData },
    ),
  );
  const page = inbox.data;
  return (
    <section aria-labelledby="inbox-title" className="space-y-4">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="inbox-title" className="text-lg font-semibold">
          Pending items
        </h2>
        {page !== undefined && (
          <p className="text-sm text-ink-muted" aria-live="polite">
            <span data-testid="pending-count" className="font-semibold text-ink">
              {page.pendingCount}
            </span>{" "}
            pending · newest first
          </p>
        )}
      </div>
      {inbox.isPending && <p className="text-ink-muted">Loading the inbox…</p>}
      {inbox.isError && <QueryProblem what="the inbox" error={inbox.error} />}
      {page !== undefined && page.items.length === 0 && (
        <p
          className="rounded-xl border border-dashed border-line-strong bg-surface px-4 py-8 text-center text-ink-muted"
          data-testid="inbox-empty"
        >
          {before === undefined ? "Nothing is waiting. New items appear here within a few seconds." : "No older items."}
        </p>
      )}
      {page !== undefined && page.items.length > 0 && (
        <ol className="space-y-3" aria-label="Pending items, newest first">
          {page.items.map((entry) => (
            <li key={entry.deliveryToken}>
              <InboxItemCard entry={entry} />
            </li>
          ))}
        </ol>
      )}
      {(cursors.length > 1 || page?.nextBefore !== undefined) && (
        <nav aria-label="Inbox pages" className="flex gap-2">
          <button
            type="button"
            disabled={cursors.length === 1}
            onClick={() => setCursors((list) => list.slice(0, -1))}
            className="rounded-md border border-line-strong bg-surface px-3 py-1.5 text-sm font-medium hover:bg-surface-sunken disabled:opacity-50"
          >
            Newer items
          </button>
          <button
            type="button"
            disabled={page?.nextBefore === undefined}
            onClick={() => {
              const next = page?.nextBefore;
              if (next !== undefined) setCursors((list) => [...list, next]);
            }}
            className="rounded-md border border-line-strong bg-surface px-3 py-1.5 text-sm font-medium hover:bg-surface-sunken disabled:opacity-50"
          >
            Older items
          </button>
        </nav>
      )}
    </section>
  );
}

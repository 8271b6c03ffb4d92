"use client";
/**
 * The firewall's recent checks, newest first, a page at a time (`firewall.checks` with its
 * cursor). The newest page is polled, so checks appear as traffic passes; older pages are walked
 * with Older / Newer, like the inbox.
 */
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/trpc/daemon-trpc";
import { FirewallCheckCard } from "./firewall-check-card";
import { QueryProblem } from "./query-problem";

const PAGE_SIZE = 20;
const POLL_MS = 2_000;
const pageButton =
  "rounded-md border border-line-strong bg-surface px-3 py-1.5 text-sm font-medium hover:bg-surface-sunken disabled:opacity-50";

/** The audit of the daemon whose tRPC provider encloses it. */
export function FirewallChecks() {
  const trpc = useTRPC();
  const [cursors, setCursors] = useState<readonly (number | undefined)[]>([undefined]);
  const cursor = cursors.at(-1);
  const checks = useQuery(
    trpc.firewall.checks.queryOptions(
      { cursor, limit: PAGE_SIZE },
      // Only the newest page polls: an older page stays as the owner paged to it, and the previous
      // page stays on screen while the next one loads.
      { refetchInterval: cursor === undefined ? POLL_MS : false, placeholderData: keepPreviousData },
    ),
  );
  const page = checks.data;
  return (
    <div className="space-y-3">
      {checks.isPending && <p className="text-ink-muted">Loading the checks…</p>}
      {checks.isError && <QueryProblem what="the checks" error={checks.error} />}
      {page !== undefined && page.checks.length === 0 && (
        <p
          className="rounded-xl border border-dashed border-line-strong bg-surface px-4 py-6 text-center text-ink-muted"
          data-testid="checks-empty"
        >
          {cursor === undefined ? "No check has run yet." : "No older checks."}
        </p>
      )}
      {page !== undefined && page.checks.length > 0 && (
        <ol className="space-y-3" aria-label="Checks, newest first">
          {page.checks.map((check) => (
            <li key={check.checkId}>
              <FirewallCheckCard check={check} />
            </li>
          ))}
        </ol>
      )}
      {(cursors.length > 1 || page?.nextCursor !== undefined) && (
        <nav aria-label="Check pages" className="flex gap-2">
          <button
            type="button"
            disabled={cursors.length === 1}
            onClick={() => setCursors((list) => list.slice(0, -1))}
            className={pageButton}
          >
            Newer checks
          </button>
          <button
            type="button"
            disabled={page?.nextCursor === undefined}
            onClick={() => {
              const next = page?.nextCursor;
              if (next !== undefined) setCursors((list) => [...list, next]);
            }}
            className={pageButton}
          >
            Older checks
          </button>
        </nav>
      )}
    </div>
  );
}

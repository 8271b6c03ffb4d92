"use client";
/**
 * A daemon's status from `status`, polled every two seconds: as a card on the daemons page (name,
 * link state, pending and held counts, trust policy, firewall mode, failing webhooks, links to its
 * Overview and inbox) and as the header of its pages.
 */
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/trpc/daemon-trpc";
import { DAEMON_SECTIONS, daemonSectionHref } from "./daemon-sections";
import { LinkBadge } from "./link-badge";
import { QueryProblem } from "./query-problem";

const POLL_MS = 2_000;

function useDaemonStatus() {
  const trpc = useTRPC();
  return useQuery(trpc.status.queryOptions(undefined, { refetchInterval: POLL_MS }));
}

/** The overview card for the daemon `name` (its provider must enclose this). */
export function DaemonCard({ name }: { name: string }) {
  const status = useDaemonStatus();
  const home = daemonSectionHref(name, DAEMON_SECTIONS[0].slug);
  const inbox = daemonSectionHref(name, "inbox");
  return (
    <article
      aria-labelledby={`daemon-${name}`}
      className="flex flex-col gap-4 rounded-xl border border-line bg-surface p-5 shadow-sm"
      data-testid={`daemon-card-${name}`}
    >
      <header className="flex items-start justify-between gap-3">
        <h2 id={`daemon-${name}`} className="font-mono text-lg font-semibold break-all">
          {name}
        </h2>
        {status.data !== undefined && <LinkBadge state={status.data.link} />}
      </header>
      {status.isPending && <p className="text-sm text-ink-muted">Asking the daemon…</p>}
      {status.isError && <QueryProblem what="the status" error={status.error} />}
      {status.data !== undefined && (
        <dl className="grid grid-cols-2 gap-3 text-sm sm:grid-cols-4">
          <div>
            <dt className="text-ink-faint">Pending</dt>
            <dd className="text-2xl font-semibold tabular-nums" data-testid="daemon-pending">
              {status.data.pendingCount}
            </dd>
          </div>
          <div>
            <dt className="text-ink-faint">Held</dt>
            <dd
              className={`text-2xl font-semibold tabular-nums ${status.data.heldCount > 0 ? "text-warn" : ""}`}
              data-testid="daemon-held"
            >
              {status.data.heldCount}
            </dd>
          </div>
          <div>
            <dt className="text-ink-faint">Trust policy</dt>
            <dd className="mt-1.5 font-medium">{status.data.trustPolicy}</dd>
          </div>
          <div>
            <dt className="text-ink-faint">Firewall</dt>
            <dd className="mt-1.5 font-medium" data-testid="daemon-firewall-mode">
              {status.data.firewall.mode}
            </dd>
          </div>
        </dl>
      )}
      {status.data !== undefined && status.data.webhooks.suspended + status.data.webhooks.failing > 0 && (
        <p
          role="status"
          className="rounded-md bg-danger-soft px-3 py-2 text-sm text-danger"
          data-testid="daemon-webhooks"
        >
          Webhooks:{" "}
          {[
            status.data.webhooks.suspended > 0 ? `${status.data.webhooks.suspended} suspended` : undefined,
            status.data.webhooks.failing > 0 ? `${status.data.webhooks.failing} failing` : undefined,
          ]
            .filter((part) => part !== undefined)
            .join(", ")}
          .{" "}
          <Link href={daemonSectionHref(name, "subscriptions")} className="font-medium underline">
            See subscriptions
          </Link>
        </p>
      )}
      <div className="mt-auto flex flex-wrap gap-2">
        <Link
          href={inbox}
          className="rounded-md bg-accent px-3 py-1.5 text-sm font-medium text-white hover:bg-accent-hover"
        >
          Open {name}&rsquo;s inbox
        </Link>
        <Link
          href={home}
          className="rounded-md border border-line-strong px-3 py-1.5 text-sm font-medium text-ink hover:bg-surface-sunken"
        >
          Overview
        </Link>
      </div>
    </article>
  );
}

/** The header of a daemon's pages: its name, link state, trust policy and firewall mode. */
export function DaemonHeader({ name }: { name: string }) {
  const status = useDaemonStatus();
  return (
    <header className="flex flex-wrap items-center gap-x-4 gap-y-2">
      <h1 className="font-mono text-2xl font-semibold break-all">{name}</h1>
      {status.data !== undefined && (
        <>
          <LinkBadge state={status.data.link} />
          <span className="text-sm text-ink-muted">
            Trust policy: <span className="font-medium text-ink">{status.data.trustPolicy}</span>
          </span>
          <span className="text-sm text-ink-muted" data-testid="header-firewall">
            Firewall:{" "}
            <span className="font-medium text-ink" data-testid="header-firewall-mode">
              {status.data.firewall.mode}
            </span>
            {status.data.firewall.revision > 0 && (
              <span className="text-ink-faint"> (revision {status.data.firewall.revision})</span>
            )}
          </span>
        </>
      )}
      {status.isError && <QueryProblem what="the status" error={status.error} />}
    </header>
  );
}

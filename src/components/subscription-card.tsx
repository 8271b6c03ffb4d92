"use client";
/**
 * One webhook subscription: its state, a terminal rejection if the receiver sent one, delivery
 * diagnostics (attempts, failing since, last error category, next attempt, lease, secret
 * fingerprint), and Revoke and Resume through `subscriptions.revoke` / `subscriptions.resume`.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useTRPC } from "@/trpc/daemon-trpc";
import type { SubscriptionStatus } from "@/trpc/owner-api";
import { ConfirmButton } from "./confirm-button";
import { describeFromNow, Timestamp, useNow } from "./time";

const STATES: Readonly<Record<SubscriptionStatus["state"], { label: string; tone: string }>> = {
  active: { label: "Active", tone: "bg-ok-soft text-ok" },
  suspended: { label: "Suspended", tone: "bg-danger-soft text-danger" },
  expired: { label: "Expired", tone: "bg-warn-soft text-warn" },
  revoked: { label: "Revoked", tone: "bg-surface-sunken text-ink-muted" },
};

const ERRORS: Readonly<Record<NonNullable<SubscriptionStatus["lastError"]>, string>> = {
  connection_refused: "Connection refused",
  timeout: "Timed out",
  tls_error: "TLS error",
  http_4xx: "HTTP 4xx",
  http_5xx: "HTTP 5xx",
  redirect: "Redirect (not followed)",
  challenge_failed: "Challenge failed",
};

function Fact({ label, testId, children }: { label: string; testId: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-ink-faint">{label}</dt>
      <dd className="mt-0.5 font-medium break-words" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

function When({ ms, now }: { ms: number | null; now: number }) {
  if (ms === null) return <span className="text-ink-muted">—</span>;
  return (
    <>
      <Timestamp ms={ms} /> {now > 0 && <span className="text-ink-muted">({describeFromNow(ms, now)})</span>}
    </>
  );
}

/** A card for one subscription, with its own Revoke and Resume actions. */
export function SubscriptionCard({ subscription: s }: { subscription: SubscriptionStatus }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const now = useNow();
  const refresh = { onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.subscriptions.pathKey() }) };
  const revoke = useMutation(trpc.subscriptions.revoke.mutationOptions(refresh));
  const resume = useMutation(trpc.subscriptions.resume.mutationOptions(refresh));
  const state = STATES[s.state];
  const shortId = `${s.id.slice(0, 16)}…`;
  const headingId = `subscription-${s.id}`;
  const busy = revoke.isPending || resume.isPending;
  const problem = revoke.error ?? resume.error;
  return (
    <article
      aria-labelledby={headingId}
      className="rounded-xl border border-line bg-surface p-4 shadow-sm sm:p-5"
      data-testid="subscription"
      data-subscription-id={s.id}
      data-state={s.state}
    >
      <header className="flex flex-wrap items-start justify-between gap-x-4 gap-y-2">
        <div className="min-w-0">
          <h3 id={headingId} className="flex flex-wrap items-center gap-2 font-semibold text-ink">
            <span
              className={`inline-block rounded-full px-2 py-0.5 text-xs font-medium ${state.tone}`}
              data-testid="subscription-state"
            >
              {state.label}
            </span>
            <span className="font-mono text-sm" title={s.id}>
              {shortId}
            </span>
          </h3>
          <p className="mt-1 text-xs text-ink-muted">
            <span className="font-mono">{s.event}</span> · subscribed with the {s.principal} token ·{" "}
            <Timestamp ms={s.createdAt} />
          </p>
        </div>
        <div className="flex shrink-0 gap-2">
          {s.state === "suspended" && !s.terminalRejection && (
            <button
              type="button"
              onClick={() => resume.mutate({ id: s.id })}
              disabled={busy}
              aria-label={`Resume subscription ${shortId}`}
              className="rounded-md bg-accent px-3 py-1.5 text-sm font-medium text-white hover:bg-accent-hover disabled:cursor-wait disabled:opacity-60"
            >
              {resume.isPending ? "Resuming…" : "Resume"}
            </button>
          )}
          {s.state !== "revoked" && (
            <ConfirmButton
              verb="Revoke"
              label={`Revoke subscription ${shortId}`}
              question="Revoke it? Deliveries stop and the host must subscribe again. This cannot be undone."
              busyText="Revoking…"
              busy={revoke.isPending}
              disabled={busy}
              onConfirm={() => revoke.mutate({ id: s.id })}
              className="rounded-md border border-line-strong bg-surface px-3 py-1.5 text-sm font-medium text-ink hover:border-danger hover:bg-danger-soft hover:text-danger disabled:cursor-wait disabled:opacity-60"
            />
          )}
        </div>
      </header>
      {s.terminalRejection && s.state !== "revoked" && (
        <p
          role="status"
          className="mt-3 rounded-md border border-danger/30 bg-danger-soft px-3 py-2 text-sm text-danger"
          data-testid="terminal-rejection"
        >
          The receiver rejected delivery with HTTP {s.terminalStatus}. Resuming cannot clear this: fix the receiver,
          revoke this subscription, and let the host subscribe again.
        </p>
      )}
      <dl className="mt-4 grid grid-cols-2 gap-3 text-sm sm:grid-cols-4">
        <Fact label="Delivered" testId="subscription-delivered">
          <span className="tabular-nums">{s.delivered}</span>
        </Fact>
        <Fact label="Failed attempts" testId="subscription-attempts">
          <span className="tabular-nums">{s.attempts}</span>
          {s.inFlight && (
            <span className="ml-1 text-xs text-ink-muted">
              ({s.state === "active" ? "item in flight" : "item retained"})
            </span>
          )}
        </Fact>
        <Fact label="Last error" testId="subscription-last-error">
          {s.lastError === null ? <span className="text-ink-muted">None</span> : ERRORS[s.lastError]}
        </Fact>
        <Fact label="Secret fingerprint" testId="subscription-fingerprint">
          <span className="font-mono">{s.secretFingerprint}</span>
        </Fact>
        <Fact label="Failing since" testId="subscription-failing-since">
          <When ms={s.failingSince} now={now} />
        </Fact>
        <Fact label="Next attempt" testId="subscription-next-attempt">
          <When ms={s.nextAttemptAt} now={now} />
        </Fact>
        <Fact
          label={s.state === "expired" ? "Lease expired" : s.state === "revoked" ? "Lease" : "Lease expires"}
          testId="subscription-lease"
        >
          {s.state === "revoked" ? (
            <span className="text-ink-muted">ended when it was revoked</span>
          ) : (
            <When ms={s.leaseExpiresAt} now={now} />
          )}
        </Fact>
        <Fact label={s.state === "revoked" ? "Revoked" : "Last delivery"} testId="subscription-last-delivery">
          <When ms={s.state === "revoked" ? s.revokedAt : s.lastDeliveryAt} now={now} />
        </Fact>
      </dl>
      {problem !== null && (
        <p role="alert" className="mt-3 text-sm text-danger" data-testid="subscription-problem">
          Could not {revoke.error !== null ? "revoke" : "resume"}: {problem.message}
        </p>
      )}
    </article>
  );
}

"use client";
/**
 * A daemon's trust list (SPEC §5, seed 002): the policy, each trusted agent with when it was
 * added and an Untrust button, and a form to trust another. The list changes only through the
 * owner API; untrusting an agent holds its later items, and delivered items stay delivered.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/daemon-trpc";
import { describeRefusal } from "./api-refusal";
import { PolicyNote } from "./policy-note";
import { QueryProblem } from "./query-problem";
import { Timestamp } from "./time";
import { TrustForm } from "./trust-form";

const POLL_MS = 2_000;

/** The trust list of the daemon whose tRPC provider encloses it. */
export function TrustView() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const trust = useQuery(trpc.trust.list.queryOptions(undefined, { refetchInterval: POLL_MS }));
  const untrust = useMutation(
    trpc.trust.remove.mutationOptions({
      onSuccess: () =>
        Promise.all(
          [trpc.trust.pathKey(), trpc.status.queryKey()].map((queryKey) => queryClient.invalidateQueries({ queryKey })),
        ),
    }),
  );
  const trusted = trust.data?.trusted;
  return (
    <section aria-labelledby="trust-title" className="space-y-4">
      <h2 id="trust-title" className="text-lg font-semibold">
        Trusted agents
      </h2>
      {trust.data !== undefined && <PolicyNote policy={trust.data.policy} />}
      {trust.isPending && <p className="text-ink-muted">Loading the trust list…</p>}
      {trust.isError && <QueryProblem what="the trust list" error={trust.error} />}
      {untrust.isSuccess && (
        <p role="status" className="text-sm text-ink-muted" data-testid="untrust-result">
          {!untrust.data.removed
            ? `${untrust.variables.name} was not on the trust list.`
            : trust.data?.policy === "allowlist"
              ? `Untrusted ${untrust.variables.name}; its new items will be held.`
              : `Untrusted ${untrust.variables.name}.`}
        </p>
      )}
      {untrust.isError && (
        <p role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-sm text-danger">
          Could not untrust {untrust.variables.name}: {describeRefusal(untrust.error.message)}
        </p>
      )}
      {trusted !== undefined && trusted.length === 0 && (
        <p
          className="rounded-xl border border-dashed border-line-strong bg-surface px-4 py-8 text-center text-ink-muted"
          data-testid="trust-empty"
        >
          No agent is trusted yet.
        </p>
      )}
      {trusted !== undefined && trusted.length > 0 && (
        <ul
          className="divide-y divide-line rounded-xl border border-line bg-surface shadow-sm"
          aria-label="Trusted agents"
        >
          {trusted.map((agent) => (
            <li
              key={agent.name}
              className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2 px-4 py-3"
              data-testid="trusted-agent"
              data-name={agent.name}
            >
              <div className="min-w-0">
                <p className="font-mono font-medium break-all text-ink">agent:{agent.name}</p>
                <p className="text-xs text-ink-muted">
                  Trusted since <Timestamp ms={agent.addedAt} />
                </p>
              </div>
              <button
                type="button"
                onClick={() => untrust.mutate({ name: agent.name })}
                disabled={untrust.isPending}
                aria-label={`Untrust ${agent.name}`}
                className="shrink-0 rounded-md border border-line-strong bg-surface px-3 py-1.5 text-sm font-medium text-ink hover:border-danger hover:bg-danger-soft hover:text-danger disabled:cursor-wait disabled:opacity-60"
              >
                {untrust.isPending && untrust.variables.name === agent.name ? "Untrusting…" : "Untrust"}
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="rounded-xl border border-line bg-surface p-4 shadow-sm sm:p-5">
        <TrustForm />
      </div>
    </section>
  );
}

"use client";
/**
 * Items held for the owner (SPEC §5): from senders not trusted under the allowlist policy, never
 * delivered. Polled every two seconds. Trusting a sender releases all its held items into the
 * inbox in their original order, so they leave this list together.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/trpc/daemon-trpc";
import { describeRefusal } from "./api-refusal";
import { daemonSectionHref } from "./daemon-sections";
import { HeldItemCard } from "./held-item-card";
import { PolicyNote } from "./policy-note";
import { QueryProblem } from "./query-problem";

const POLL_MS = 2_000;

/** The held items of the daemon `name`, whose tRPC provider encloses it. */
export function HoldsView({ name }: { name: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const holds = useQuery(trpc.holds.list.queryOptions(undefined, { refetchInterval: POLL_MS }));
  const trust = useQuery(trpc.trust.list.queryOptions(undefined, { refetchInterval: POLL_MS }));
  const trustSender = useMutation(
    trpc.trust.add.mutationOptions({
      onSuccess: () =>
        Promise.all(
          [trpc.holds.pathKey(), trpc.trust.pathKey(), trpc.inbox.pathKey(), trpc.status.queryKey()].map((queryKey) =>
            queryClient.invalidateQueries({ queryKey }),
          ),
        ),
    }),
  );
  const list = holds.data?.holds;
  return (
    <section aria-labelledby="holds-title" className="space-y-4">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="holds-title" className="text-lg font-semibold">
          Held items
        </h2>
        {list !== undefined && (
          <p className="text-sm text-ink-muted" aria-live="polite">
            <span data-testid="held-count" className="font-semibold text-ink">
              {list.length}
            </span>{" "}
            held
          </p>
        )}
      </div>
      {trust.data !== undefined && <PolicyNote policy={trust.data.policy} />}
      {trust.isError && <QueryProblem what="the trust policy" error={trust.error} />}
      {trustSender.isSuccess && (
        <p role="status" className="rounded-md bg-ok-soft px-3 py-2 text-sm text-ok" data-testid="trust-released">
          Trusted {trustSender.variables.name}: {trustSender.data.released} held{" "}
          {trustSender.data.released === 1 ? "item" : "items"} released to the{" "}
          <Link href={daemonSectionHref(name, "inbox")} className="font-medium underline">
            inbox
          </Link>
          .
        </p>
      )}
      {trustSender.isError && (
        <p role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-sm text-danger">
          Could not trust {trustSender.variables.name}: {describeRefusal(trustSender.error.message)}
        </p>
      )}
      {holds.isPending && <p className="text-ink-muted">Loading the held items…</p>}
      {holds.isError && <QueryProblem what="the held items" error={holds.error} />}
      {list !== undefined && list.length === 0 && (
        <p
          className="rounded-xl border border-dashed border-line-strong bg-surface px-4 py-8 text-center text-ink-muted"
          data-testid="holds-empty"
        >
          Nothing is held.
        </p>
      )}
      {list !== undefined && list.length > 0 && (
        <ol className="space-y-3" aria-label="Held items, oldest first">
          {list.map((hold) => (
            <li key={hold.id}>
              <HeldItemCard
                hold={hold}
                onTrust={(sender) => trustSender.mutate({ name: sender })}
                trusting={trustSender.isPending && trustSender.variables.name === hold.sender}
              />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

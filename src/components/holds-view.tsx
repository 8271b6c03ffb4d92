"use client";
/**
 * Items held for the owner (SPEC §5, §10): by trust, from senders not trusted under the allowlist
 * policy, and by the firewall. Held items never reach the agent. Polled every two seconds. The
 * owner releases one into the inbox (with its guidance) or discards it (the certified history
 * keeps the record); trusting a sender releases all its trust holds in their original order.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "@/trpc/daemon-trpc";
import type { HeldItem } from "@/trpc/owner-api";
import { describeRefusal } from "./api-refusal";
import { daemonSectionHref } from "./daemon-sections";
import { HeldItemCard, type HoldAction } from "./held-item-card";
import { summarizeItem } from "./inbound-item-body";
import { PolicyNote } from "./policy-note";
import { QueryProblem } from "./query-problem";

const POLL_MS = 2_000;

/** Held items in the Inbox's order, newest first (the owner API lists them oldest first). */
function newestFirst(holds: readonly HeldItem[]): HeldItem[] {
  return [...holds].reverse();
}

function describeHold(hold: HeldItem): string {
  const { label, relation, party } = summarizeItem(hold.item);
  return `the ${label.toLowerCase()} ${relation} ${party}`;
}

/** The held items of the daemon `name`, whose tRPC provider encloses it. */
export function HoldsView({ name }: { name: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [acted, setActed] = useState<{ action: HoldAction; hold: HeldItem } | undefined>();
  const holds = useQuery(trpc.holds.list.queryOptions(undefined, { refetchInterval: POLL_MS }));
  const trust = useQuery(trpc.trust.list.queryOptions(undefined, { refetchInterval: POLL_MS }));
  const refresh = {
    onSuccess: () =>
      Promise.all(
        [trpc.holds.pathKey(), trpc.trust.pathKey(), trpc.inbox.pathKey(), trpc.status.queryKey()].map((queryKey) =>
          queryClient.invalidateQueries({ queryKey }),
        ),
      ),
  };
  const trustSender = useMutation(trpc.trust.add.mutationOptions(refresh));
  const release = useMutation(trpc.holds.release.mutationOptions(refresh));
  const discard = useMutation(trpc.holds.discard.mutationOptions(refresh));
  const mutations = { trust: trustSender, release, discard } as const;
  const act = (action: HoldAction, hold: HeldItem) => {
    for (const mutation of Object.values(mutations)) mutation.reset();
    setActed({ action, hold });
    if (action === "trust") trustSender.mutate({ name: hold.sender });
    else mutations[action].mutate({ holdId: hold.id });
  };
  const running = acted === undefined ? undefined : mutations[acted.action];
  const list = holds.data?.holds;
  const inbox = (
    <Link href={daemonSectionHref(name, "inbox")} className="font-medium underline">
      inbox
    </Link>
  );
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
            held · newest first
          </p>
        )}
      </div>
      {trust.data !== undefined && <PolicyNote policy={trust.data.policy} />}
      {trust.isError && <QueryProblem what="the trust policy" error={trust.error} />}
      {acted?.action === "trust" && trustSender.isSuccess && (
        <p role="status" className="rounded-md bg-ok-soft px-3 py-2 text-sm text-ok" data-testid="trust-released">
          Trusted {acted.hold.sender}: {trustSender.data.released} held{" "}
          {trustSender.data.released === 1 ? "item" : "items"} released to the {inbox}.
        </p>
      )}
      {acted?.action === "release" && release.isSuccess && (
        <p role="status" className="rounded-md bg-ok-soft px-3 py-2 text-sm text-ok" data-testid="hold-released">
          Released {describeHold(acted.hold)} to the {inbox}.
        </p>
      )}
      {acted?.action === "discard" && discard.isSuccess && (
        <p
          role="status"
          className="rounded-md bg-surface px-3 py-2 text-sm text-ink-muted"
          data-testid="hold-discarded"
        >
          Discarded {describeHold(acted.hold)}. The certified history keeps its record.
        </p>
      )}
      {acted !== undefined && running?.isError === true && (
        <p role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-sm text-danger" data-testid="hold-problem">
          Could not{" "}
          {acted.action === "trust" ? `trust ${acted.hold.sender}` : `${acted.action} ${describeHold(acted.hold)}`}:{" "}
          {describeRefusal(running.error.message)}
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
        <ol className="space-y-3" aria-label="Held items, newest first">
          {newestFirst(list).map((hold) => (
            <li key={hold.id}>
              <HeldItemCard
                hold={hold}
                onAction={act}
                busy={
                  acted !== undefined && running?.isPending === true && acted.hold.id === hold.id
                    ? acted.action
                    : undefined
                }
              />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

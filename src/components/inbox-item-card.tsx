"use client";
/**
 * One pending inbox item: what it is, who it is from, when it arrived, in which conversation,
 * its body, and a Discard button that acknowledges it through `inbox.discard`. A question the
 * agent has answered stays pending until acknowledged, so it reads "Answered question".
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/daemon-trpc";
import type { InboxEntry } from "@/trpc/owner-api";
import { ConfirmButton } from "./confirm-button";
import { GuidanceNote } from "./guidance-note";
import { InboundItemBody, summarizeItem } from "./inbound-item-body";
import { Timestamp } from "./time";

/** A card for one inbox entry, with its own Discard action. */
export function InboxItemCard({ entry }: { entry: InboxEntry }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const discard = useMutation(
    trpc.inbox.discard.mutationOptions({
      onSuccess: () =>
        Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.inbox.pathKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.status.queryKey() }),
        ]),
    }),
  );
  const { label, relation, party } = summarizeItem(entry.item, entry.answered);
  const headingId = `item-${entry.deliveryToken}`;
  return (
    <article
      aria-labelledby={headingId}
      className="rounded-xl border border-line bg-surface p-4 shadow-sm sm:p-5"
      data-testid="inbox-item"
      data-kind={entry.item.kind}
      data-answered={entry.answered ? "true" : undefined}
      data-delivery-token={entry.deliveryToken}
    >
      <header className="flex flex-wrap items-start justify-between gap-x-4 gap-y-2">
        <div className="min-w-0">
          <h3 id={headingId} className="font-semibold text-ink">
            <span
              className={`mr-2 inline-block rounded-full px-2 py-0.5 text-xs font-medium ${
                entry.answered ? "bg-ok-soft text-ok" : "bg-accent-soft text-accent-ink"
              }`}
              data-testid="item-label"
            >
              {label}
            </span>
            <span className="text-sm font-normal text-ink-muted">{relation} </span>
            <span
              className="font-mono text-sm font-medium"
              data-testid={relation === "from" ? "item-sender" : "item-recipient"}
            >
              {party}
            </span>
          </h3>
          <p className="mt-1 text-xs text-ink-muted">
            Received <Timestamp ms={entry.receivedAt} />
            {entry.conversation !== null && (
              <>
                {" · "}conversation{" "}
                <span className="font-mono break-words" data-testid="item-conversation">
                  {entry.conversation}
                </span>
              </>
            )}
          </p>
        </div>
        <ConfirmButton
          verb="Discard"
          label={`Discard ${label.toLowerCase()} ${relation} ${party}`}
          question={
            entry.answered
              ? "Discard it? The agent has answered it; the history keeps the question and the answer. This cannot be undone."
              : "Discard it? The agent will not see it; the history keeps its record. This cannot be undone."
          }
          busyText="Discarding…"
          busy={discard.isPending || discard.isSuccess}
          disabled={false}
          onConfirm={() => discard.mutate({ deliveryToken: entry.deliveryToken })}
          className="shrink-0 rounded-md border border-line-strong bg-surface px-3 py-1.5 text-sm font-medium text-ink hover:border-danger hover:bg-danger-soft hover:text-danger disabled:cursor-wait disabled:opacity-60"
        />
      </header>
      <div className="mt-4 space-y-3">
        <InboundItemBody item={entry.item} answered={entry.answered} />
        {entry.guidance !== undefined && <GuidanceNote guidance={entry.guidance} />}
        {discard.isError && (
          <p role="alert" className="text-sm text-danger">
            Could not discard: {discard.error.message}
          </p>
        )}
      </div>
    </article>
  );
}

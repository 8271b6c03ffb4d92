"use client";
/**
 * One item held for the owner because its sender is not trusted: what it is and who sent it, the
 * conversation, when and why it was held, its body (as the inbox would show it), and a button to
 * trust the sender, which the enclosing view carries out.
 */
import type { HeldItem } from "@/trpc/owner-api";
import { InboundItemBody, summarizeItem } from "./inbound-item-body";
import { Timestamp } from "./time";

/** A card for one held item; `onTrust` trusts its sender, `trusting` while that call runs. */
export function HeldItemCard({
  hold,
  onTrust,
  trusting,
}: {
  hold: HeldItem;
  onTrust: (sender: string) => void;
  trusting: boolean;
}) {
  const { label, relation, party } = summarizeItem(hold.item);
  const headingId = `hold-${hold.id}`;
  return (
    <article
      aria-labelledby={headingId}
      className="rounded-xl border border-line bg-surface p-4 shadow-sm sm:p-5"
      data-testid="held-item"
      data-kind={hold.item.kind}
      data-sender={hold.sender}
    >
      <header className="flex flex-wrap items-start justify-between gap-x-4 gap-y-2">
        <div className="min-w-0">
          <h3 id={headingId} className="font-semibold text-ink">
            <span className="mr-2 inline-block rounded-full bg-warn-soft px-2 py-0.5 text-xs font-medium text-warn">
              Held {label.toLowerCase()}
            </span>
            <span className="text-sm font-normal text-ink-muted">{relation} </span>
            <span className="font-mono text-sm font-medium" data-testid="held-sender">
              {party}
            </span>
          </h3>
          <p className="mt-1 text-xs text-ink-muted">
            Held <Timestamp ms={hold.heldAt} />
            {" · "}conversation{" "}
            <span className="font-mono break-words" data-testid="held-conversation">
              {hold.conv}
            </span>
          </p>
        </div>
        <button
          type="button"
          onClick={() => onTrust(hold.sender)}
          disabled={trusting}
          className="shrink-0 rounded-md bg-accent px-3 py-1.5 text-sm font-medium text-white hover:bg-accent-hover disabled:cursor-wait disabled:opacity-60"
        >
          {trusting ? "Trusting…" : `Trust ${hold.sender}`}
        </button>
      </header>
      <div className="mt-4 space-y-3">
        <p
          className="rounded-md border border-warn/30 bg-warn-soft px-3 py-2 text-sm text-ink"
          data-testid="held-reason"
        >
          <span className="font-medium text-warn">Why it is held: </span>
          {hold.reason}
        </p>
        <InboundItemBody item={hold.item} />
      </div>
    </article>
  );
}

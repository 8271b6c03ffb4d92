"use client";
/**
 * One item held for the owner, by trust (its sender is not trusted) or by the firewall (a rule or
 * a judge held it): what it is and who sent it, the conversation, when and why, its body as the
 * inbox would show it, the guidance the agent would get with it, and the firewall's audit. The
 * owner releases it into the inbox or discards it; a trust hold also offers to trust its sender.
 * The enclosing view carries the actions out.
 */
import type { HeldItem } from "@/trpc/owner-api";
import { ConfirmButton } from "./confirm-button";
import { DecisionBadge, MiddlewareAudit } from "./firewall-audit";
import { formatLatency, HOLD_SOURCES } from "./firewall-words";
import { GuidanceNote } from "./guidance-note";
import { InboundItemBody, summarizeItem } from "./inbound-item-body";
import { Timestamp } from "./time";

export type HoldAction = "release" | "discard" | "trust";

const secondary =
  "rounded-md border border-line-strong bg-surface px-3 py-1.5 text-sm font-medium text-ink disabled:cursor-wait disabled:opacity-60";

function Audit({ audit }: { audit: NonNullable<HeldItem["audit"]> }) {
  return (
    <section aria-label="Firewall audit" className="space-y-2" data-testid="held-audit">
      <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-ink-muted">
        <span className="font-medium tracking-wide uppercase">Firewall audit</span>
        <DecisionBadge decision={audit.decision} testId="held-audit-decision" />
        <span>
          check <span className="font-mono break-all">{audit.checkId}</span> · revision {audit.revision} · {audit.mode}{" "}
          · {formatLatency(audit.latencyUs)}
        </span>
      </p>
      <MiddlewareAudit middlewares={audit.middlewares} />
    </section>
  );
}

/** A card for one held item; `onAction` carries out release, discard or trust, `busy` names the one running. */
export function HeldItemCard({
  hold,
  onAction,
  busy,
}: {
  hold: HeldItem;
  onAction: (action: HoldAction, hold: HeldItem) => void;
  busy: HoldAction | undefined;
}) {
  const { label, relation, party } = summarizeItem(hold.item);
  const source = HOLD_SOURCES[hold.source];
  const headingId = `hold-${hold.id}`;
  const describe = `${label.toLowerCase()} ${relation} ${party}`;
  return (
    <article
      aria-labelledby={headingId}
      className="rounded-xl border border-line bg-surface p-4 shadow-sm sm:p-5"
      data-testid="held-item"
      data-hold-id={hold.id}
      data-kind={hold.item.kind}
      data-sender={hold.sender}
      data-source={hold.source}
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
            <span
              className="mr-1 inline-block rounded bg-surface-sunken px-1.5 py-0.5 font-medium text-ink"
              title={source.meaning}
              data-testid="held-source"
            >
              {source.label}
            </span>
            Held <Timestamp ms={hold.heldAt} />
            {" · "}conversation{" "}
            <span className="font-mono break-words" data-testid="held-conversation">
              {hold.conv}
            </span>
          </p>
        </div>
        <div className="flex shrink-0 flex-wrap gap-2">
          {hold.source === "trust" && (
            <button
              type="button"
              onClick={() => onAction("trust", hold)}
              disabled={busy !== undefined}
              className="rounded-md bg-accent px-3 py-1.5 text-sm font-medium text-white hover:bg-accent-hover disabled:cursor-wait disabled:opacity-60"
            >
              {busy === "trust" ? "Trusting…" : `Trust ${hold.sender}`}
            </button>
          )}
          <button
            type="button"
            onClick={() => onAction("release", hold)}
            disabled={busy !== undefined}
            aria-label={`Release ${describe} to the inbox`}
            className={`${secondary} hover:border-ok hover:bg-ok-soft hover:text-ok`}
          >
            {busy === "release" ? "Releasing…" : "Release"}
          </button>
          <ConfirmButton
            verb="Discard"
            label={`Discard ${describe}`}
            question="Discard it? It never reaches the agent; the history keeps its record. This cannot be undone."
            busyText="Discarding…"
            busy={busy === "discard"}
            disabled={busy !== undefined}
            onConfirm={() => onAction("discard", hold)}
            className={`${secondary} hover:border-danger hover:bg-danger-soft hover:text-danger`}
          />
        </div>
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
        {hold.guidance !== undefined && <GuidanceNote guidance={hold.guidance} context="held" />}
        {hold.audit !== undefined && <Audit audit={hold.audit} />}
      </div>
    </article>
  );
}

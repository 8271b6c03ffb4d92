/**
 * One certified record of a conversation's history: its sequence number, kind, author and time,
 * its text and data parts, its collective part in words (none for a plain message, which is a
 * multicast), and what the daemon did with it (its disposition). A genesis lists the group's members.
 */
import type { HistoryRecord } from "@/trpc/owner-api";
import { readHistoryContent, shortId } from "./history-content";
import { MessageContent } from "./message-content";
import { Timestamp } from "./time";

const DISPOSITIONS: Readonly<Record<HistoryRecord["disposition"], { label: string; tone: string; meaning: string }>> = {
  own: { label: "Own", tone: "bg-accent-soft text-accent-ink", meaning: "posted by this agent" },
  delivered: { label: "Delivered", tone: "bg-ok-soft text-ok", meaning: "admitted to the inbox" },
  held: {
    label: "Held",
    tone: "bg-warn-soft text-warn",
    meaning: "held for the owner: the sender was not trusted, or the firewall held it",
  },
  queued: { label: "Checking", tone: "bg-surface-sunken text-ink-muted", meaning: "waiting for its firewall check" },
  discarded: {
    label: "Discarded",
    tone: "bg-surface-sunken text-ink-muted",
    meaning: "held, then discarded by the owner",
  },
  consumed: {
    label: "Consumed",
    tone: "bg-surface-sunken text-ink-muted",
    meaning: "recorded and used by the daemon, never an inbox item",
  },
};

const GENESIS = {
  label: "Group opened",
  tone: "bg-surface-sunken text-ink-muted",
  meaning: "the record every member co-signed to open the group; it is never an inbox item",
};

/** A card for one history record. */
export function HistoryRecordCard({ record }: { record: HistoryRecord }) {
  const { parts, collective } = readHistoryContent(record.content);
  // A genesis is consumed by definition (it opens the group, it is never an inbox item).
  const disposition = record.kind === "genesis" ? GENESIS : DISPOSITIONS[record.disposition];
  const headingId = `record-${record.recordHash}`;
  return (
    <article
      aria-labelledby={headingId}
      className="rounded-xl border border-line bg-surface p-4 shadow-sm"
      data-testid="history-record"
      data-seq={record.seq}
      data-disposition={record.disposition}
    >
      <header className="flex flex-wrap items-start justify-between gap-x-4 gap-y-2">
        <div className="min-w-0">
          <h4 id={headingId} className="flex flex-wrap items-baseline gap-x-2 font-semibold text-ink">
            <span className="font-mono text-sm text-ink-faint" data-testid="record-seq">
              #{record.seq}
            </span>
            <span className="text-sm font-medium" data-testid="record-kind">
              {record.kind === "genesis" ? "Genesis" : "Post"}
            </span>
            <span className="text-sm font-normal text-ink-muted">by</span>
            <span className="font-mono text-sm font-medium" data-testid="record-author">
              {record.author}
            </span>
          </h4>
          <p className="mt-1 text-xs text-ink-muted">
            <Timestamp ms={record.at} /> ·{" "}
            <span className="font-mono" title={record.recordHash}>
              {shortId(record.recordHash)}
            </span>
          </p>
        </div>
        <span
          className={`shrink-0 rounded-full px-2 py-0.5 text-xs font-medium ${disposition.tone}`}
          title={disposition.meaning}
          data-testid="record-disposition"
        >
          {disposition.label}
          <span className="sr-only">: {disposition.meaning}</span>
        </span>
      </header>
      <div className="mt-3 space-y-2">
        {record.members !== undefined && (
          <p className="text-sm text-ink-muted">
            Opens the group of <span className="font-mono text-ink">{record.members.join(", ")}</span>
          </p>
        )}
        {parts.length > 0 && <MessageContent parts={parts} />}
        {collective !== undefined && collective !== "multicast" && (
          <p className="text-xs text-ink-muted">
            Collective part:{" "}
            <span className="font-mono text-ink" data-testid="record-collective">
              {collective}
            </span>
          </p>
        )}
      </div>
    </article>
  );
}

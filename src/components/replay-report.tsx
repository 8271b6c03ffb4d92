"use client";
/**
 * What a draft policy would have decided over the last stored records (`firewall.replay`), beside
 * what was decided when they passed: a summary by "was → would", then the entries, the changed
 * ones first shown. Nothing a replay decides is stored or acted on.
 */
import { useState } from "react";
import type { ReplayEntry, ReplayResult } from "@/trpc/owner-api";
import { conversationKeyOf } from "./conversation-key";
import { DecisionBadge } from "./firewall-audit";
import { OUTCOMES } from "./firewall-words";
import { Timestamp } from "./time";

function Was({ was }: { was: ReplayEntry["was"] }) {
  if (was === null) return <span className="text-xs text-ink-muted">not checked</span>;
  return (
    <span className="inline-flex flex-wrap items-center gap-1">
      <DecisionBadge decision={was.decision} testId="replay-was" />
      <span className="text-xs text-ink-muted">{OUTCOMES[was.outcome as keyof typeof OUTCOMES] ?? was.outcome}</span>
    </span>
  );
}

function Would({ would }: { would: ReplayEntry["would"] }) {
  if (would === null) return <span className="text-xs text-ink-muted">not checked</span>;
  return (
    <span className="space-y-1">
      <span className="inline-flex flex-wrap items-center gap-1">
        <DecisionBadge decision={would.decision} testId="replay-would" />
        {would.rules.map((rule) => (
          <span key={`${rule.middlewareId}/${rule.ruleId}`} className="font-mono text-xs text-ink-muted">
            {rule.middlewareId}/{rule.ruleId}: {rule.decision}
          </span>
        ))}
      </span>
      {would.errors.map((error) => (
        <span key={error} className="block text-xs text-danger">
          {error}
        </span>
      ))}
    </span>
  );
}

function EntryRow({ entry }: { entry: ReplayEntry }) {
  return (
    <li
      className={`space-y-1 px-3 py-2 text-sm ${entry.changed ? "bg-warn-soft/40" : ""}`}
      data-testid="replay-entry"
      data-changed={entry.changed ? "true" : "false"}
      data-record={entry.recordHash}
    >
      <p className="flex flex-wrap items-baseline gap-x-2 text-xs text-ink-muted">
        <span className="font-medium text-ink">{entry.direction === "inbound" ? "Inbound" : "Outbound"}</span>
        <span className="font-mono">{entry.subject.kind}</span>
        <span>
          from <span className="font-mono">{entry.subject.sender}</span> in{" "}
          <span className="font-mono break-all" data-testid="replay-conversation">
            {conversationKeyOf(entry.subject)}
          </span>
        </span>
        <Timestamp ms={entry.at} />
      </p>
      <p className="max-w-prose truncate text-ink" title={entry.subject.text} data-testid="replay-text">
        {entry.subject.text === "" ? <span className="text-ink-faint italic">no text</span> : entry.subject.text}
      </p>
      <div className="grid gap-1 sm:grid-cols-2">
        <p className="flex flex-wrap items-center gap-2">
          <span className="text-xs text-ink-faint">Was</span> <Was was={entry.was} />
        </p>
        <p className="flex flex-wrap items-center gap-2">
          <span className="text-xs text-ink-faint">Would be</span> <Would would={entry.would} />
        </p>
      </div>
    </li>
  );
}

/** The result of one replay. */
export function ReplayReport({ result }: { result: ReplayResult }) {
  const [all, setAll] = useState(false);
  const { summary } = result;
  const changes = Object.entries(summary.changes).sort(([, a], [, b]) => b - a);
  const shown = all ? result.entries : result.entries.filter((entry) => entry.changed);
  return (
    <section aria-labelledby="replay-title" className="space-y-3" data-testid="replay-report">
      <h3 id="replay-title" className="font-semibold text-ink">
        Replay of the draft
      </h3>
      <p className="text-sm text-ink-muted" data-testid="replay-summary">
        Over the last <span className="font-semibold text-ink">{summary.records}</span> records the draft checks{" "}
        <span className="font-semibold text-ink">{summary.checked}</span>;{" "}
        <span className="font-semibold text-ink" data-testid="replay-changed">
          {summary.changed}
        </span>{" "}
        would be decided otherwise. Nothing here is stored or acted on.
      </p>
      {changes.length > 0 && (
        <table className="text-sm" aria-label="What would change">
          <thead>
            <tr className="text-left text-xs text-ink-faint">
              <th scope="col" className="pr-6 font-medium">
                Was → would be
              </th>
              <th scope="col" className="font-medium">
                Records
              </th>
            </tr>
          </thead>
          <tbody>
            {changes.map(([change, count]) => (
              <tr key={change} data-testid="replay-change" data-change={change}>
                <td className="pr-6 font-mono">{change}</td>
                <td className="tabular-nums" data-testid="replay-change-count">
                  {count}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm font-medium text-ink">
          {all ? "Every replayed record" : "The records that would change"}
        </p>
        <button
          type="button"
          onClick={() => setAll((value) => !value)}
          className="text-sm font-medium text-accent underline hover:text-accent-hover"
        >
          {all ? "Show only changes" : `Show all ${result.entries.length}`}
        </button>
      </div>
      {shown.length === 0 ? (
        <p className="rounded-md border border-dashed border-line-strong px-3 py-4 text-center text-sm text-ink-muted">
          {all ? "No stored record to replay." : "The draft decides every record as it was decided."}
        </p>
      ) : (
        <ol className="divide-y divide-line rounded-md border border-line" aria-label="Replayed records, newest first">
          {[...shown].reverse().map((entry) => (
            <EntryRow key={entry.recordHash} entry={entry} />
          ))}
        </ol>
      )}
    </section>
  );
}

/**
 * One settled firewall check from the audit (`firewall.checks`): its direction, the decision and
 * what happened, the mode and revision it ran under, its subjects (who, where, the words), each
 * middleware's decision or error with its latency, and the guidance the agent was given.
 */
import type { FirewallCheck } from "@/trpc/owner-api";
import { DecisionBadge, MiddlewareAudit } from "./firewall-audit";
import { formatLatency, OUTCOMES } from "./firewall-words";
import { GuidanceNote } from "./guidance-note";
import { Timestamp } from "./time";

/** A card for one check. */
export function FirewallCheckCard({ check }: { check: FirewallCheck }) {
  return (
    <article
      className="space-y-3 rounded-xl border border-line bg-surface p-4 shadow-sm"
      aria-label={`Check ${check.checkId}`}
      data-testid="firewall-check"
      data-check-id={check.checkId}
      data-direction={check.direction}
      data-decision={check.decision}
      data-outcome={check.outcome}
    >
      <header className="flex flex-wrap items-start justify-between gap-x-4 gap-y-1">
        <p className="flex flex-wrap items-center gap-2 text-sm">
          <span className="font-semibold text-ink">{check.direction === "inbound" ? "Inbound" : "Outbound"}</span>
          <DecisionBadge decision={check.decision} testId="check-decision" />
          <span className="text-ink-muted" data-testid="check-outcome">
            {OUTCOMES[check.outcome]}
          </span>
          {check.stale > 0 && (
            <span className="rounded-full bg-warn-soft px-2 py-0.5 text-xs text-warn">
              {check.stale} stale {check.stale === 1 ? "capture" : "captures"}
            </span>
          )}
        </p>
        <p className="text-xs text-ink-muted">
          <Timestamp ms={check.createdAt} /> ·{" "}
          <span className="tabular-nums" data-testid="check-latency">
            {formatLatency(check.latencyUs)}
          </span>
        </p>
      </header>
      <p className="text-xs text-ink-muted">
        <span className="font-mono break-all">{check.checkId}</span> · {check.mode} mode · revision {check.revision} ·
        conversation <span className="font-mono break-all">{check.conv}</span>
      </p>
      <ul className="space-y-1" aria-label="Subjects">
        {check.subjects.map((subject) => (
          <li key={subject.id} className="text-sm" data-testid="check-subject">
            <p className="text-xs text-ink-muted">
              <span className="font-mono">{subject.kind}</span> from{" "}
              <span className="font-mono text-ink">{subject.sender}</span> to{" "}
              <span className="font-mono break-all">{subject.recipients.join(", ")}</span>
            </p>
            <p className="max-w-prose break-words whitespace-pre-wrap text-ink" data-testid="check-subject-text">
              {subject.text === "" ? <span className="text-ink-faint italic">no text</span> : subject.text}
            </p>
          </li>
        ))}
      </ul>
      <MiddlewareAudit middlewares={check.middlewares} />
      {check.guidance !== null && <GuidanceNote guidance={check.guidance} context="check" />}
    </article>
  );
}

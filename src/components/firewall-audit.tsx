/**
 * What a firewall check decided, middleware by middleware (SPEC §10 audit): each one's decision,
 * or its error (an error is never a pass: its onError decided), the rules that spoke with a
 * judge's probability, and how long it took. Shared by the Firewall page and held items.
 */
import type { FirewallDecision, MiddlewareVerdict } from "@/trpc/owner-api";
import { DECISIONS, EXPECTATIONS, formatLatency, formatProbability } from "./firewall-words";

/** A decision as a coloured badge. */
export function DecisionBadge({ decision, testId }: { decision: FirewallDecision; testId?: string }) {
  const { label, tone } = DECISIONS[decision];
  return (
    <span
      className={`inline-block rounded-full px-2 py-0.5 text-xs font-medium ${tone}`}
      data-testid={testId}
      data-decision={decision}
    >
      {label}
    </span>
  );
}

function RuleLine({ rule }: { rule: MiddlewareVerdict["rules"][number] }) {
  const notes = [
    rule.expectation === undefined ? undefined : EXPECTATIONS[rule.expectation],
    rule.uncertain === undefined
      ? undefined
      : `uncertain: ${rule.uncertain.choice} at ${formatProbability(rule.uncertain.probability)}`,
    rule.probability === undefined || rule.uncertain !== undefined
      ? undefined
      : `p(violating) ${formatProbability(rule.probability)}`,
  ].filter((note) => note !== undefined);
  return (
    <li className="flex flex-wrap items-baseline gap-x-2" data-testid="audit-rule" data-rule-id={rule.ruleId}>
      <span className="font-mono text-xs text-ink">{rule.ruleId}</span>
      <span className="text-xs text-ink-muted">{DECISIONS[rule.decision].label.toLowerCase()}</span>
      {notes.length > 0 && <span className="text-xs text-ink-faint">({notes.join("; ")})</span>}
    </li>
  );
}

/** Each middleware's verdict of one check, in policy order. */
export function MiddlewareAudit({ middlewares }: { middlewares: readonly MiddlewareVerdict[] }) {
  if (middlewares.length === 0) return <p className="text-sm text-ink-muted">No middleware ran.</p>;
  return (
    <ul className="divide-y divide-line rounded-md border border-line" aria-label="Middleware decisions">
      {middlewares.map((verdict) => (
        <li
          key={verdict.middlewareId}
          className="flex flex-wrap items-start justify-between gap-x-4 gap-y-1 px-3 py-2 text-sm"
          data-testid="audit-middleware"
          data-middleware-id={verdict.middlewareId}
          data-decision={verdict.decision}
          data-error={verdict.error === undefined ? undefined : "true"}
        >
          <div className="min-w-0 space-y-1">
            <p className="flex flex-wrap items-center gap-2">
              <span className="font-mono font-medium text-ink">{verdict.middlewareId}</span>
              <span className="text-xs text-ink-faint">{verdict.kind}</span>
              {verdict.error === undefined ? (
                <DecisionBadge decision={verdict.decision} />
              ) : (
                <span className="inline-block rounded-full bg-danger-soft px-2 py-0.5 text-xs font-medium text-danger">
                  Error · decided {DECISIONS[verdict.decision].label.toLowerCase()}
                </span>
              )}
            </p>
            {verdict.error !== undefined && (
              <p className="text-xs break-words text-danger" data-testid="audit-error">
                {verdict.error}
              </p>
            )}
            {verdict.rules.length === 0 ? (
              <p className="text-xs text-ink-faint">No rule matched.</p>
            ) : (
              <ul className="space-y-0.5">
                {verdict.rules.map((rule) => (
                  <RuleLine key={rule.ruleId} rule={rule} />
                ))}
              </ul>
            )}
          </div>
          <span className="shrink-0 text-xs text-ink-muted tabular-nums" data-testid="audit-latency">
            {formatLatency(verdict.latencyUs)}
          </span>
        </li>
      ))}
    </ul>
  );
}

"use client";
/**
 * The fields a refusal named, each shown where it is in the draft as submitted: the field's path,
 * its line with one line of context either side, and the daemon's message directly under the
 * field, like a compiler's diagnostic. A field missing from the draft is shown at its parent.
 */
import type { PlacedIssue } from "./policy-draft";

function Excerpt({ text, issue }: { text: string; issue: PlacedIssue }) {
  const lines = text.split("\n");
  const first = Math.max(1, issue.line - 1);
  const last = Math.min(lines.length, issue.line + 1);
  const rows: { number: number; code: string }[] = [];
  for (let number = first; number <= last; number += 1) rows.push({ number, code: lines[number - 1] ?? "" });
  return (
    <div className="overflow-x-auto rounded-md bg-surface-sunken py-1 font-mono text-xs leading-5">
      <table className="border-collapse">
        <tbody>
          {rows.map(({ number, code }) => (
            <FragmentRows key={number} number={number} code={code} issue={number === issue.line ? issue : undefined} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function FragmentRows({ number, code, issue }: { number: number; code: string; issue?: PlacedIssue }) {
  return (
    <>
      <tr className={issue === undefined ? "text-ink-muted" : "bg-danger-soft text-ink"}>
        <td className="px-2 text-right text-ink-faint tabular-nums select-none">{number}</td>
        <td className="pr-3 whitespace-pre">{code}</td>
      </tr>
      {issue !== undefined && (
        <tr>
          <td />
          <td className="pr-3 whitespace-pre text-danger" data-testid="policy-issue-inline">
            <span aria-hidden="true">{" ".repeat(Math.max(0, issue.column - 1))}^ </span>
            {issue.exact ? issue.message : `${issue.path.split(".").at(-1)}: ${issue.message}`}
          </td>
        </tr>
      )}
    </>
  );
}

/** The issues of one refusal over the draft `text` it refused; `onShow` selects an issue's line. */
export function PolicyIssues({
  text,
  issues,
  onShow,
}: {
  text: string;
  issues: readonly PlacedIssue[];
  onShow: (line: number) => void;
}) {
  return (
    <ol className="space-y-3" aria-label="Invalid fields">
      {issues.map((issue, index) => (
        <li
          key={`${issue.path}-${index}`}
          className="space-y-1"
          data-testid="policy-issue"
          data-path={issue.path}
          data-line={issue.line}
        >
          <p className="flex flex-wrap items-baseline gap-x-2 text-sm">
            <code className="font-mono font-medium break-all text-danger" data-testid="policy-issue-path">
              {issue.path}
            </code>
            <span className="text-ink" data-testid="policy-issue-message">
              {issue.message}
            </span>
            <button
              type="button"
              onClick={() => onShow(issue.line)}
              className="text-xs font-medium text-accent underline hover:text-accent-hover"
              aria-label={`Show line ${issue.line} in the editor`}
            >
              line {issue.line}
              {issue.exact ? "" : " (its enclosing field)"}
            </button>
          </p>
          <Excerpt text={text} issue={issue} />
        </li>
      ))}
    </ol>
  );
}

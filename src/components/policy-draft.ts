/**
 * The owner's policy draft as text: read as JSON before anything is sent (a syntax error is named
 * with its line here), and the daemon's field-named refusals (`data.issues` of a BAD_REQUEST from
 * `firewall.set` or `firewall.replay`) placed at the line of the field they name, or of its
 * nearest enclosing field when the field itself is missing from the draft.
 */
import { locateJson, type TextPosition } from "./json-locate";

/** One refused field, as the daemon names it (`middlewares.0.rules.1.decision`). */
export interface PolicyIssue {
  readonly path: string;
  readonly message: string;
}

/** An issue placed in the draft: at the field's line and column, or its nearest enclosing field's. */
export interface PlacedIssue extends PolicyIssue {
  readonly line: number;
  readonly column: number;
  /** The field itself is in the draft (false: it is missing, and `line` is its parent's). */
  readonly exact: boolean;
}

export type DraftRead =
  | { readonly ok: true; readonly document: unknown; readonly fields: ReadonlyMap<string, TextPosition> }
  | { readonly ok: false; readonly problem: PlacedIssue };

/** The text the editor starts from for a policy: two-space JSON. */
export function formatPolicy(policy: unknown): string {
  return `${JSON.stringify(policy, null, 2)}\n`;
}

/** Reads a draft as a JSON document, or names the line where it stops being JSON. */
export function readDraft(text: string): DraftRead {
  const located = locateJson(text);
  if (!located.ok) {
    return {
      ok: false,
      problem: {
        path: "(json)",
        message: `not JSON: ${located.message} (line ${located.at.line}, column ${located.at.column})`,
        line: located.at.line,
        column: located.at.column,
        exact: true,
      },
    };
  }
  return { ok: true, document: JSON.parse(text) as unknown, fields: located.fields };
}

/** Places each issue at its field's line in the draft (the whole policy: line 1). */
export function placeIssues(fields: ReadonlyMap<string, TextPosition>, issues: readonly PolicyIssue[]): PlacedIssue[] {
  return issues.map((issue) => {
    const segments = issue.path === "(policy)" ? [] : issue.path.split(".");
    for (let length = segments.length; length >= 0; length -= 1) {
      const at = fields.get(segments.slice(0, length).join("."));
      if (at !== undefined) return { ...issue, line: at.line, column: at.column, exact: length === segments.length };
    }
    return { ...issue, line: 1, column: 1, exact: false };
  });
}

function isIssue(value: unknown): value is PolicyIssue {
  if (typeof value !== "object" || value === null) return false;
  const { path, message } = value as Record<string, unknown>;
  return typeof path === "string" && typeof message === "string";
}

/** The field-named issues of a refused policy, from a tRPC client error; undefined for other errors. */
export function policyIssuesOf(error: { readonly data?: unknown } | null): PolicyIssue[] | undefined {
  const data = error?.data;
  if (typeof data !== "object" || data === null || !("issues" in data)) return undefined;
  const issues = (data as { issues: unknown }).issues;
  if (!Array.isArray(issues) || issues.length === 0 || !issues.every(isIssue)) return undefined;
  return issues.map(({ path, message }) => ({ path, message }));
}

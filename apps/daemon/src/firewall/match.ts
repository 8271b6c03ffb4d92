/**
 * A rule's `match` (SPEC §10): every condition present must hold. `from` names senders, `to`
 * conversations (`group:*` any group, `agent:*` any direct conversation), `kinds` item kinds, and
 * `text` a pattern over the subject's words, run by the linear-time engine (linear-pattern.ts)
 * within the check's step budget. Patterns are compiled once per policy; text is tested last.
 */
import {
  compilePattern,
  testPattern,
  type LinearPattern,
  type PatternBudget,
  type PatternOutcome,
} from "./linear-pattern.js";
import { appliesTo, type Direction, type Match } from "./policy.schema.js";

type Direction3 = Direction | "both";
import type { Subject } from "./subjects.js";

export type Matcher = (subject: Subject, budget: PatternBudget) => PatternOutcome | Promise<PatternOutcome>;

/** The NFA steps one middleware's patterns may spend on one check (docs/firewall.md "Budgets"). */
export const CHECK_STEP_BUDGET = 2 ** 25;

/** A fresh allowance for one middleware's run over one subject. */
export function checkBudget(): PatternBudget {
  return { remaining: CHECK_STEP_BUDGET };
}

export function compileMatch(match: Match): Matcher {
  let pattern: LinearPattern | undefined;
  if (match.text !== undefined) {
    const compiled = compilePattern(match.text.pattern, match.text.flags ?? "");
    // The schema refused every pattern the engine cannot run; a stored one that slips by is a bug.
    if (!compiled.ok) throw new Error(`a stored pattern does not compile: ${compiled.message}`);
    pattern = compiled.pattern;
  }
  return (subject, budget) => {
    if (match.from !== undefined && !match.from.includes(subject.sender)) return "no-match";
    if (match.kinds !== undefined && !match.kinds.includes(subject.kind)) return "no-match";
    if (match.to !== undefined) {
      const group = subject.conversation.startsWith("group:");
      const named = match.to.some(
        (to) => to === subject.conversation || (to === "group:*" && group) || (to === "agent:*" && !group),
      );
      if (!named) return "no-match";
    }
    if (pattern === undefined) return "match";
    if (budget.remaining <= 0) return "over-budget";
    return testPattern(pattern, subject.text, budget);
  };
}

/** What an audit says of a pattern that spent the check's budget. */
export function overBudgetError(ruleIds: string): string {
  return `${ruleIds}: the patterns spent the check's budget of ${CHECK_STEP_BUDGET} steps on this text`;
}

/**
 * The rules among `rules` that apply in `direction` and match `subject`, in order, within one
 * budget. Once the budget is spent no further pattern is tried (conditions without a pattern
 * still are), and `error` names each rule left undecided.
 */
export async function matchingRules<T extends { rule: { id: string; direction: Direction3 }; matches: Matcher }>(
  rules: readonly T[],
  direction: Direction,
  subject: Subject,
): Promise<{ matched: T[]; error: string | undefined }> {
  const budget = checkBudget();
  const matched: T[] = [];
  const undecided: string[] = [];
  for (const entry of rules) {
    if (!appliesTo(entry.rule, direction)) continue;
    const outcome = await entry.matches(subject, budget);
    if (outcome === "match") matched.push(entry);
    else if (outcome === "over-budget") undecided.push(entry.rule.id);
  }
  return { matched, error: undecided.length === 0 ? undefined : overBudgetError(undecided.join(", ")) };
}

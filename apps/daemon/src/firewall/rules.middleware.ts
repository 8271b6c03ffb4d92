/**
 * The `rules` middleware: fixed rules over sender, conversation, kind and text. Every matching rule
 * contributes: allow rules add their expectation for the model, hold and refuse rules decide.
 * Synchronous and allocation-light; it adds well under a millisecond to a check.
 */
import { compileMatch } from "./match.js";
import { appliesTo, type Direction, type RulesMiddleware } from "./policy.schema.js";
import type { Subject } from "./subjects.js";
import { strictest, type MiddlewareVerdict, type RuleVerdict } from "./verdicts.js";

export interface MiddlewareRun {
  readonly direction: Direction;
  readonly subject: Subject;
  readonly now: number;
}

export interface CompiledMiddleware {
  readonly id: string;
  /** True when some rule of it applies to checks of this direction. */
  covers(direction: Direction): boolean;
  run(input: MiddlewareRun): MiddlewareVerdict | Promise<MiddlewareVerdict>;
}

export function compileRules(middleware: RulesMiddleware): CompiledMiddleware {
  const rules = middleware.rules.map((rule) => ({ rule, matches: compileMatch(rule.match) }));
  return {
    id: middleware.id,
    covers: (direction) => middleware.rules.some((r) => appliesTo(r, direction)),
    run({ direction, subject }) {
      const started = process.hrtime.bigint();
      const matched: RuleVerdict[] = [];
      for (const { rule, matches } of rules) {
        if (!appliesTo(rule, direction) || !matches(subject)) continue;
        matched.push({
          ruleId: rule.id,
          decision: rule.decision,
          instruction: rule.instruction,
          ...(rule.expectation === undefined ? {} : { expectation: rule.expectation }),
        });
      }
      return {
        middlewareId: middleware.id,
        kind: "rules",
        decision: strictest(matched.map((m) => m.decision)),
        rules: matched,
        latencyUs: Number((process.hrtime.bigint() - started) / 1000n),
      };
    },
  };
}

/**
 * The `rules` middleware: fixed rules over sender, conversation, kind and text. Every matching rule
 * contributes: allow rules add their expectation for the model, hold and refuse rules decide. Its
 * patterns run in linear time within one step budget per check; a check that spends it is
 * recorded as an error and decides the middleware's `onError` (hold by default), never a pass.
 */
import { compileMatch, matchingRules } from "./match.js";
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
  run(input: MiddlewareRun): Promise<MiddlewareVerdict>;
}

export function compileRules(middleware: RulesMiddleware): CompiledMiddleware {
  const rules = middleware.rules.map((rule) => ({ rule, matches: compileMatch(rule.match) }));
  return {
    id: middleware.id,
    covers: (direction) => middleware.rules.some((r) => appliesTo(r, direction)),
    async run({ direction, subject }) {
      const started = process.hrtime.bigint();
      const { matched, error } = await matchingRules(rules, direction, subject);
      const verdicts: RuleVerdict[] = matched.map(({ rule }) => ({
        ruleId: rule.id,
        decision: rule.decision,
        instruction: rule.instruction,
        ...(rule.expectation === undefined ? {} : { expectation: rule.expectation }),
      }));
      const decided = strictest(verdicts.map((m) => m.decision));
      return {
        middlewareId: middleware.id,
        kind: "rules",
        decision: error === undefined ? decided : strictest([decided, middleware.onError ?? "hold"]),
        rules: verdicts,
        ...(error === undefined ? {} : { error }),
        latencyUs: Number((process.hrtime.bigint() - started) / 1000n),
      };
    },
  };
}

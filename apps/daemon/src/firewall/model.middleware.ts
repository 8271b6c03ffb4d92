/**
 * The `model` middleware (SPEC §10): each rule asks the judge its norm and turns the probability of
 * the violating choice into a decision: at or above `decideAt`, the rule's decision; from
 * `uncertainAt` up, allow with an uncertain judgment the model sees; below, allow. A judge that
 * fails or does not answer within `timeoutMs` (its queue wait included) applies `onError` (hold by
 * default) and the audit records the error, never a pass.
 */
import { compileMatch, matchingRules } from "./match.js";
import { JudgeClient, JudgeError, type JudgeAnswer } from "./judge-client.js";
import { appliesTo, type ModelMiddleware } from "./policy.schema.js";
import type { CompiledMiddleware } from "./rules.middleware.js";
import { strictest, type RuleVerdict } from "./verdicts.js";

/** The probability that `violating` is the right choice, from the judge's answer. */
export function violationProbability(answer: JudgeAnswer, violating: string, choices: readonly string[]): number {
  if (answer.choice === violating) return answer.probability;
  // Another choice at probability p leaves at most 1 - p for the violating one.
  return choices.length === 2 ? 1 - answer.probability : Math.min(1 - answer.probability, 1);
}

export function compileModel(middleware: ModelMiddleware, apiKey: string | undefined): CompiledMiddleware {
  const judge = new JudgeClient({
    endpoint: middleware.endpoint,
    model: middleware.model,
    apiKey,
    timeoutMs: middleware.timeoutMs,
    concurrency: middleware.concurrency,
  });
  const rules = middleware.rules.map((rule) => ({ rule, matches: compileMatch(rule.match) }));
  return {
    id: middleware.id,
    covers: (direction) => middleware.rules.some((r) => appliesTo(r, direction)),
    async run({ direction, subject }) {
      const started = process.hrtime.bigint();
      const judged: RuleVerdict[] = [];
      const { matched: applicable, error: matchError } = await matchingRules(rules, direction, subject);
      let error = matchError;
      const answers = await Promise.all(
        applicable.map(({ rule }) =>
          judge.ask({ norm: rule.norm, choices: rule.choices, subject }).then(
            (answer) => ({ rule, answer }),
            (failure: unknown) => ({
              rule,
              failure: failure instanceof JudgeError ? failure.message : "the judge failed",
            }),
          ),
        ),
      );
      for (const outcome of answers) {
        const { rule } = outcome;
        if ("failure" in outcome) {
          error = error === undefined ? `${rule.id}: ${outcome.failure}` : `${error}; ${rule.id}: ${outcome.failure}`;
          continue;
        }
        const p = violationProbability(outcome.answer, rule.violating, rule.choices);
        const probability = Math.round(p * 1000) / 1000;
        if (p >= rule.decideAt) {
          judged.push({ ruleId: rule.id, decision: rule.decision, instruction: rule.instruction, probability });
        } else if (p >= rule.uncertainAt) {
          judged.push({
            ruleId: rule.id,
            decision: "allow",
            instruction: rule.instruction,
            uncertain: { choice: rule.violating, probability },
            probability,
          });
        } else {
          judged.push({ ruleId: rule.id, decision: "allow", instruction: rule.instruction, probability });
        }
      }
      const decided = strictest(judged.map((j) => j.decision));
      const decision = error === undefined ? decided : strictest([decided, middleware.onError]);
      return {
        middlewareId: middleware.id,
        kind: "model",
        decision,
        rules: judged,
        ...(error === undefined ? {} : { error }),
        latencyUs: Number((process.hrtime.bigint() - started) / 1000n),
      };
    },
  };
}

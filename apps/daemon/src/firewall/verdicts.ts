/**
 * The vocabulary of a check: what each middleware decided (or why it failed), how the strictest
 * decision wins, and what the model is told (seed 003 CheckedGuidance: expectations for allowed
 * items, and uncertain norm judgments). Held and refused items never reach the model; their rule's
 * instruction becomes the owner's reason and a refused sender's feedback.
 */
import type { CheckedGuidance } from "@social-harness/protocol";
import type { Subject } from "./subjects.js";

export type Decision = "allow" | "hold" | "refuse";

export interface RuleVerdict {
  readonly ruleId: string;
  readonly decision: Decision;
  readonly instruction: string;
  readonly expectation?: "required" | "permitted" | "wait" | "none";
  readonly uncertain?: { readonly choice: string; readonly probability: number };
  /** A judge's probability for a violating choice, for the audit. */
  readonly probability?: number;
}

export interface MiddlewareVerdict {
  readonly middlewareId: string;
  readonly kind: "rules" | "model" | "rate";
  readonly decision: Decision;
  /** The rules that matched (or, for a model, the rules it judged). */
  readonly rules: readonly RuleVerdict[];
  /** Set when the middleware failed or timed out; its decision is then its onError. */
  readonly error?: string;
  readonly latencyUs: number;
}

const STRICTNESS: Record<Decision, number> = { allow: 0, hold: 1, refuse: 2 };

export function strictest(decisions: readonly Decision[]): Decision {
  return decisions.reduce<Decision>((a, b) => (STRICTNESS[b] > STRICTNESS[a] ? b : a), "allow");
}

/** The instructions the model sees for an admitted subject; undefined when there are none. */
export function guidanceOf(
  checkId: string,
  subject: Subject,
  verdicts: readonly MiddlewareVerdict[],
): CheckedGuidance | undefined {
  const instructions: CheckedGuidance["instructions"] = [];
  for (const verdict of verdicts) {
    for (const rule of verdict.rules) {
      if (rule.decision !== "allow") continue;
      if (rule.uncertain !== undefined) {
        instructions.push({
          middlewareId: verdict.middlewareId,
          ruleId: rule.ruleId,
          uncertain: { choice: rule.uncertain.choice, probability: rule.uncertain.probability },
          instruction: rule.instruction,
        });
      } else if (rule.expectation !== undefined) {
        instructions.push({
          middlewareId: verdict.middlewareId,
          ruleId: rule.ruleId,
          expectation: rule.expectation,
          subjects: [subject.id],
          instruction: rule.instruction,
        });
      }
    }
  }
  if (instructions.length === 0) return undefined;
  return {
    checkId,
    subjects: [{ id: subject.id, sender: subject.sender, recipients: [...subject.recipients], text: subject.text }],
    instructions,
  };
}

/** True when a norm judgment of the subject was left uncertain (seed 001: the send then carries guidance). */
export function isUncertain(guidance: CheckedGuidance | undefined): boolean {
  return guidance?.instructions.some((i) => "uncertain" in i) === true;
}

/** What the deciding rules say, for the owner (a hold's reason) and a refused sender (feedback). */
export function feedbackOf(verdicts: readonly MiddlewareVerdict[], decision: Decision): string {
  const lines: string[] = [];
  for (const verdict of verdicts) {
    if (verdict.decision !== decision) continue;
    if (verdict.error !== undefined) lines.push(`${verdict.middlewareId} was unavailable`);
    for (const rule of verdict.rules) if (rule.decision === decision) lines.push(rule.instruction);
  }
  return [...new Set(lines)].join(" ");
}

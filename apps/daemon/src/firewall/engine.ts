/**
 * One policy revision, compiled: its middlewares run in order on every check and the strictest
 * decision wins (SPEC §10). The result is an assessment: each middleware's verdict for the audit,
 * the decision, what the model is told when the subject is admitted, and what a refused sender is
 * told. Checks hold no transaction and no lock; a judge's latency is the check's own.
 */
import { mintId, type CheckedGuidance, type FirewallRefusal } from "@social-harness/protocol";
import { compileModel } from "./model.middleware.js";
import type { Direction, FirewallMode, FirewallPolicy } from "./policy.schema.js";
import { compileRate, type InboundClock } from "./rate.middleware.js";
import { compileRules, type CompiledMiddleware } from "./rules.middleware.js";
import type { Subject } from "./subjects.js";
import { feedbackOf, guidanceOf, strictest, type Decision, type MiddlewareVerdict } from "./verdicts.js";

export interface Assessment {
  readonly checkId: string;
  readonly direction: Direction;
  readonly subject: Subject;
  readonly revision: number;
  readonly mode: FirewallMode;
  readonly decision: Decision;
  readonly verdicts: readonly MiddlewareVerdict[];
  /** What the model sees beside an admitted subject; undefined when nothing applies. */
  readonly guidance: CheckedGuidance | undefined;
  /** The deciding rules' instructions: a hold's reason, a refused send's feedback. */
  readonly feedback: string;
  readonly latencyUs: number;
}

export interface CompiledPolicy {
  readonly revision: number;
  readonly policy: FirewallPolicy;
  /** True when a check in this direction would run at least one rule. */
  active(direction: Direction): boolean;
  assess(direction: Direction, subject: Subject): Promise<Assessment>;
}

export function compilePolicy(
  revision: number,
  policy: FirewallPolicy,
  context: {
    apiKeys: ReadonlyMap<string, string>;
    clock: InboundClock;
    now: () => number;
    /** Told of every live assessment (metrics); a replay's draft passes none. */
    observe?: (assessment: Assessment) => void;
  },
): CompiledPolicy {
  const middlewares: CompiledMiddleware[] = policy.middlewares.map((middleware) => {
    switch (middleware.kind) {
      case "rules":
        return compileRules(middleware);
      case "model":
        return compileModel(middleware, context.apiKeys.get(middleware.id));
      case "rate":
        return compileRate(middleware, context.clock);
    }
  });
  return {
    revision,
    policy,
    active: (direction) => policy.mode !== "off" && middlewares.some((m) => m.covers(direction)),
    async assess(direction, subject) {
      const started = process.hrtime.bigint();
      const now = context.now();
      const verdicts: MiddlewareVerdict[] = [];
      for (const middleware of middlewares) {
        if (middleware.covers(direction)) verdicts.push(await middleware.run({ direction, subject, now }));
      }
      const decision = strictest(verdicts.map((v) => v.decision));
      const checkId = mintId("check");
      const assessment: Assessment = {
        checkId,
        direction,
        subject,
        revision,
        mode: policy.mode,
        decision,
        verdicts,
        guidance: guidanceOf(checkId, subject, verdicts),
        feedback: feedbackOf(verdicts, decision),
        latencyUs: Number((process.hrtime.bigint() - started) / 1000n),
      };
      context.observe?.(assessment);
      return assessment;
    },
  };
}

/** How a refused or held send is reported (seed 003 FirewallSendError refusals). */
export function refusalOf(assessment: Assessment): FirewallRefusal {
  if (assessment.decision === "refuse") return "refused";
  const holding = assessment.verdicts.filter((v) => v.decision === "hold");
  const byRule = holding.some((v) => v.rules.some((r) => r.decision === "hold"));
  return byRule ? "held" : "unavailable";
}

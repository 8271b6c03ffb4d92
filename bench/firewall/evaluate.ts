/**
 * Runs the evaluation set through a policy compiled by the daemon's own engine and scores it. A
 * message counts as flagged when the check holds or refuses it; "uncertain" counts admitted
 * messages the model is warned about. Precision and recall are per threat: its attacks together
 * with the benign messages that carry its trigger words, so a pattern pays for what it catches.
 */
import { performance } from "node:perf_hooks";
import {
  checkBudget,
  compilePattern,
  compilePolicy,
  InboundClock,
  testPattern,
  type CompiledPolicy,
  type FirewallPolicy,
} from "@social-harness/daemon";
import { subjectOf, THREATS, type Entry, type Threat } from "./eval-set.js";

export interface Outcome {
  readonly entry: Entry;
  readonly flagged: boolean;
  readonly uncertain: boolean;
  /** The rules that decided, as middleware/rule. */
  readonly by: readonly string[];
  readonly error: string | undefined;
}

/**
 * A compiled policy on a clock of its own: each check is 5 s after the last, so the example's rate
 * windows (20 per sender per minute) never fire on a set that holds no storm.
 */
export function compileForSet(policy: FirewallPolicy): CompiledPolicy {
  let now = 1_800_000_000_000;
  return compilePolicy(1, policy, { apiKeys: new Map(), clock: new InboundClock(), now: () => (now += 5_000) });
}

export async function runSet(policy: CompiledPolicy, entries: readonly Entry[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const entry of entries) {
    const assessment = await policy.assess(entry.direction, subjectOf(entry));
    const errors = assessment.verdicts.flatMap((v) => (v.error === undefined ? [] : [`${v.middlewareId}: ${v.error}`]));
    outcomes.push({
      entry,
      flagged: assessment.decision !== "allow",
      uncertain: assessment.guidance?.instructions.some((i) => "uncertain" in i) === true,
      by: assessment.verdicts.flatMap((v) =>
        v.rules.filter((r) => r.decision !== "allow").map((r) => `${v.middlewareId}/${r.ruleId}`),
      ),
      error: errors.length === 0 ? undefined : errors.join("; "),
    });
  }
  return outcomes;
}

/** Milliseconds per `assess` call, every entry `rounds` times (after one warm-up round). */
export async function timeChecks(policy: CompiledPolicy, entries: readonly Entry[], rounds: number): Promise<number[]> {
  const subjects = entries.map((e) => ({ direction: e.direction, subject: subjectOf(e) }));
  for (const { direction, subject } of subjects) await policy.assess(direction, subject);
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const { direction, subject } of subjects) {
      const start = performance.now();
      await policy.assess(direction, subject);
      samples.push(performance.now() - start);
    }
  }
  return samples;
}

export interface Score {
  readonly n: number;
  readonly tp: number;
  readonly fp: number;
  readonly fn: number;
  readonly tn: number;
  readonly uncertain: { readonly violating: number; readonly benign: number };
}

export function score(outcomes: readonly Outcome[]): Score {
  const count = (f: (o: Outcome) => boolean) => outcomes.filter(f).length;
  return {
    n: outcomes.length,
    tp: count((o) => o.entry.violating && o.flagged),
    fp: count((o) => !o.entry.violating && o.flagged),
    fn: count((o) => o.entry.violating && !o.flagged),
    tn: count((o) => !o.entry.violating && !o.flagged),
    uncertain: {
      violating: count((o) => o.entry.violating && !o.flagged && o.uncertain),
      benign: count((o) => !o.entry.violating && !o.flagged && o.uncertain),
    },
  };
}

export const precision = (s: Score) => (s.tp + s.fp === 0 ? Number.NaN : s.tp / (s.tp + s.fp));
export const recall = (s: Score) => (s.tp + s.fn === 0 ? Number.NaN : s.tp / (s.tp + s.fn));
export const f1 = (s: Score) => {
  const p = precision(s);
  const r = recall(s);
  return p + r === 0 ? 0 : (2 * p * r) / (p + r);
};

/** A threat's attacks and the benign messages that carry its trigger words. */
export const ofThreat = (threat: Threat) => (o: Outcome) => o.entry.category === threat || o.entry.resembles === threat;

export interface Breakdown {
  readonly overall: Score;
  readonly threats: ReadonlyMap<Threat, Score>;
  readonly benignTrigger: Score;
  readonly ordinary: Score;
  readonly tune: Score;
  readonly holdout: Score;
}

export function breakdown(outcomes: readonly Outcome[]): Breakdown {
  return {
    overall: score(outcomes),
    threats: new Map(THREATS.map((t) => [t, score(outcomes.filter(ofThreat(t)))])),
    benignTrigger: score(outcomes.filter((o) => o.entry.category === "benign-trigger")),
    ordinary: score(outcomes.filter((o) => o.entry.category === "ordinary")),
    tune: score(outcomes.filter((o) => o.entry.split === "tune")),
    holdout: score(outcomes.filter((o) => o.entry.split === "holdout")),
  };
}

/**
 * The text patterns of one check, timed per subject: the linear-time engine the daemon runs
 * (issue 23), beside JavaScript's RegExp over the same patterns (which the daemon no longer runs).
 */
export async function timePatterns(
  policy: FirewallPolicy,
  entries: readonly Entry[],
  rounds: number,
): Promise<{ regexp: number[]; linear: number[] }> {
  const texts = policy.middlewares
    .flatMap((m) => m.rules)
    .flatMap((r) => (r.match.text === undefined ? [] : [r.match.text]));
  const regexps = texts.map((t) => new RegExp(t.pattern, t.flags));
  const linear = texts.map((t) => {
    const compiled = compilePattern(t.pattern, t.flags ?? "");
    if (!compiled.ok) throw new Error(`${t.pattern}: ${compiled.message}`);
    return compiled.pattern;
  });
  const words = entries.map((e) => subjectOf(e).text);
  const times = { regexp: [] as number[], linear: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    for (const text of words) {
      let started = performance.now();
      for (const re of regexps) re.test(text);
      times.regexp.push(performance.now() - started);
      started = performance.now();
      const budget = checkBudget();
      for (const pattern of linear) await testPattern(pattern, text, budget);
      times.linear.push(performance.now() - started);
    }
  }
  return times;
}

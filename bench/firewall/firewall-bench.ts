/**
 * The firewall section of `npm run bench` (issue 10 item 8): the evaluation set against the example
 * policy of docs/firewall.md, compiled by the daemon's own engine, rules-only and with a scripted
 * judge; the latency of a check in process; and what the firewall adds to ingress through real
 * daemons. It returns summary rows for the bench's table and a section of its own; it never fails
 * on a figure.
 */
import { availableParallelism, loadavg } from "node:os";
import type { FirewallPolicy } from "@social-harness/daemon";
import { percentile, type BenchNetwork } from "../network.js";
import { loadEvalSet, wordsOf, type Entry } from "./eval-set.js";
import { breakdown, compileForSet, f1, precision, recall, runSet, timeChecks, timePatterns } from "./evaluate.js";
import { examplePolicy, withJudge } from "./example-policy.js";
import { commitFloor, ingressLatency, ingressTexts } from "./ingress.js";
import { falsePositives, scoreTable, table, techniqueTable } from "./report.js";
import { ScriptedJudge } from "./scripted-judge.js";

export interface SummaryRow {
  readonly measure: string;
  readonly value: string;
  readonly note: string;
}

export interface FirewallBench {
  readonly rows: SummaryRow[];
  readonly section: string;
}

const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
const ms = (value: number) => `${value.toFixed(2)} ms`;
const RECEIVERS = 3;

/** `net` undefined: the in-process figures only, no daemons. */
export async function firewallBench(
  net: BenchNetwork | undefined,
  options: { quick: boolean },
): Promise<FirewallBench> {
  const scale = options.quick
    ? { ruleRounds: 10, modelRounds: 1, ingress: 60 }
    : { ruleRounds: 50, modelRounds: 3, ingress: 200 };
  const entries = loadEvalSet();
  const scores = new Map(entries.map((e) => [wordsOf(e), e.judge]));
  for (const text of ingressTexts(scale.ingress, RECEIVERS)) scores.set(text, 0.01);
  const judge = await ScriptedJudge.start(scores);
  try {
    const rules = examplePolicy();
    const model = withJudge(rules, judge.endpoint);
    const evaluation = await evaluationSection(entries, rules, model, judge, scale);
    if (net === undefined) return evaluation;
    const ingress = await ingressSection(net, rules, model, scale.ingress);
    return { rows: [...evaluation.rows, ...ingress.rows], section: evaluation.section + ingress.section };
  } finally {
    await judge.close();
  }
}

async function evaluationSection(
  entries: readonly Entry[],
  rulesPolicy: FirewallPolicy,
  modelPolicy: FirewallPolicy,
  judge: ScriptedJudge,
  scale: { ruleRounds: number; modelRounds: number },
): Promise<FirewallBench> {
  const rules = await runSet(compileForSet(rulesPolicy), entries);
  const model = await runSet(compileForSet(modelPolicy), entries);
  const rulesScore = breakdown(rules);
  const modelScore = breakdown(model);
  const ruleTimes = await timeChecks(compileForSet(rulesPolicy), entries, scale.ruleRounds);
  const modelTimes = await timeChecks(compileForSet(modelPolicy), entries, scale.modelRounds);
  const patternTimes = await timePatterns(rulesPolicy, entries, scale.ruleRounds);
  const errors = model.filter((o) => o.error !== undefined).length;
  const tune = entries.filter((e) => e.split === "tune").length;
  const latency = (name: string, times: number[]) => [
    name,
    us(percentile(times, 50)),
    us(percentile(times, 99)),
    String(times.length),
  ];
  const section = [
    `\nFirewall evaluation: ${entries.length} labelled messages in bench/firewall/set/ (${tune} tune, ${entries.length - tune} held out),`,
    "the example policy of docs/firewall.md compiled by the daemon's engine. Flagged = held or refused.",
    "The judge is scripted: a loopback OpenAI-compatible server answers each message with the score the set's",
    "author assigned it, so rules+model figures measure the thresholds (decideAt 0.85, uncertainAt 0.3) and",
    `the plumbing, not a model. Judge calls: ${judge.calls}, unscripted: ${judge.unscripted.length}, judgment errors: ${errors}.\n`,
    scoreTable(rulesScore, modelScore),
    techniqueTable(rules, model),
    falsePositives(rules),
    table(
      ["check latency, in process (policy.assess)", "p50", "p99", "samples"],
      [
        latency("rules-only (example policy)", ruleTimes),
        latency("rules+model (scripted judge on loopback HTTP)", modelTimes),
        latency("its text patterns, linear-time engine (what the daemon runs)", patternTimes.linear),
        latency("the same patterns, JavaScript RegExp (before issue 23)", patternTimes.regexp),
      ],
    ),
  ].join("\n");
  const pr = (s: typeof rulesScore.overall) => `${precision(s).toFixed(2)} / ${recall(s).toFixed(2)}`;
  const rows = [
    {
      measure: "firewall check p50 / p99, rules-only",
      value: `${us(percentile(ruleTimes, 50))} / ${us(percentile(ruleTimes, 99))}`,
      note: "example policy in process; goal ≤ 0.3 ms p50",
    },
    {
      measure: "firewall patterns p50 per check, linear engine / RegExp",
      value: `${us(percentile(patternTimes.linear, 50))} / ${us(percentile(patternTimes.regexp, 50))}`,
      note: "the example policy's text patterns over each message (issue 23)",
    },
    {
      measure: "firewall precision / recall, rules-only",
      value: pr(rulesScore.overall),
      note: `F1 ${f1(rulesScore.overall).toFixed(2)}; held out ${pr(rulesScore.holdout)}; ${entries.length} messages`,
    },
    {
      measure: "firewall precision / recall, rules+model",
      value: pr(modelScore.overall),
      note: `F1 ${f1(modelScore.overall).toFixed(2)}; scripted judge: measures thresholds and plumbing, not a model`,
    },
  ];
  return { rows, section };
}

async function ingressSection(
  net: BenchNetwork,
  rulesPolicy: FirewallPolicy,
  modelPolicy: FirewallPolicy,
  samples: number,
): Promise<FirewallBench> {
  const figures = await ingressLatency(
    net,
    [
      { label: "no policy", policy: undefined },
      { label: "example policy", policy: rulesPolicy },
      { label: "example policy + scripted judge", policy: modelPolicy },
    ],
    samples,
  );
  const [off, on, judged] = figures as [(typeof figures)[0], (typeof figures)[0], (typeof figures)[0]];
  const floor = commitFloor(net.root, 300);
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
  const section = [
    `\nIngress through real daemons: send_message → the receiver's pendingCount event, ${samples} samples each,`,
    "rotating across three receivers; policies in guidance mode (every check runs, nothing is held).",
    "Inside: the receiver's own timestamps, record stored → inbox item (ms resolution), and its audit of each",
    `check (latency_us). Load average during the run: ${load} on ${availableParallelism()} cores.\n`,
    table(
      [
        "receiver",
        "p50",
        "p99",
        "added p50",
        "added p99",
        "inside: stored → inbox p50 / p99",
        "audited check p50 / p99",
      ],
      figures.map((f) => [
        f.label,
        ms(f.p50),
        ms(f.p99),
        ms(f.p50 - off.p50),
        ms(f.p99 - off.p99),
        `${f.admit.p50} / ${f.admit.p99} ms`,
        f.check === undefined ? "–" : `${us(f.check.p50)} / ${us(f.check.p99)}`,
      ]),
    ),
    "With a policy an admitted item commits twice (its record with its queued check, then the check with the item),",
    `without one once. One durable SQLite commit here (WAL, synchronous=FULL, 300 in a row): ${ms(floor.p50)} p50,`,
    `${ms(floor.p99)} p99, ${ms(floor.mean)} mean.\n`,
  ].join("\n");
  const rows = [
    {
      measure: "firewall added to ingress p50, real daemons",
      value: ms(on.p50 - off.p50),
      note: `example policy, send → inbox event; check ${on.check === undefined ? "–" : us(on.check.p50)}, one commit ${ms(floor.p50)}`,
    },
    {
      measure: "firewall added to ingress p50, with judge",
      value: ms(judged.p50 - off.p50),
      note: "example policy + scripted loopback judge",
    },
  ];
  return { rows, section };
}

/**
 * The firewall section of `npm run bench`, as text: precision, recall and F1 per threat and overall
 * for rules-only and rules+model, what each flagged among benign messages, recall per attack
 * technique, and the latency figures. Formatting only; the numbers come from evaluate.ts.
 */
import { f1, precision, recall, type Breakdown, type Outcome, type Score } from "./evaluate.js";
import { THREATS } from "./eval-set.js";

export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n") + "\n";
}

const ratio = (value: number) => (Number.isNaN(value) ? "–" : value.toFixed(2));
const prf = (s: Score) => `${ratio(precision(s))} / ${ratio(recall(s))} / ${ratio(f1(s))}`;
const flaggedShare = (s: Score) => `${s.fp} of ${s.n} (${((100 * s.fp) / Math.max(1, s.n)).toFixed(0)}%)`;
const uncertain = (s: Score) => `${s.uncertain.violating} / ${s.uncertain.benign}`;

export function scoreTable(rules: Breakdown, model: Breakdown): string {
  const row = (name: string, a: Score, b: Score) => [name, String(a.n), prf(a), prf(b), uncertain(b)];
  const rows = [
    ...THREATS.map((t) => row(`${t} (attacks + look-alikes)`, rules.threats.get(t)!, model.threats.get(t)!)),
    row("all messages", rules.overall, model.overall),
    row("  tune split (the patterns were written on it)", rules.tune, model.tune),
    row("  held out (written after the patterns)", rules.holdout, model.holdout),
  ];
  const benign = [
    ["benign with trigger words, flagged", String(rules.benignTrigger.n), flaggedShare(rules.benignTrigger)],
    ["ordinary agent traffic, flagged", String(rules.ordinary.n), flaggedShare(rules.ordinary)],
  ].map(([name, n, share], i) => [
    name!,
    n!,
    share!,
    flaggedShare(i === 0 ? model.benignTrigger : model.ordinary),
    uncertain(i === 0 ? model.benignTrigger : model.ordinary),
  ]);
  return table(
    ["group", "n", "rules-only P / R / F1", "rules+model P / R / F1", "uncertain (violating / benign)"],
    [...rows, ...benign],
  );
}

/** Recall per attack technique: how each family fares against the patterns and the judge. */
export function techniqueTable(rules: readonly Outcome[], model: readonly Outcome[]): string {
  const techniques = new Map<string, { n: number; rules: number; model: number }>();
  for (const [i, outcome] of rules.entries()) {
    if (!outcome.entry.violating) continue;
    const key = `${outcome.entry.category}: ${outcome.entry.technique ?? "other"}`;
    const t = techniques.get(key) ?? { n: 0, rules: 0, model: 0 };
    t.n++;
    if (outcome.flagged) t.rules++;
    if (model[i]!.flagged) t.model++;
    techniques.set(key, t);
  }
  const rows = [...techniques.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, t]) => [name, String(t.n), `${t.rules}`, `${t.model}`]);
  return table(["attack technique", "n", "caught by rules", "by rules+model"], rows);
}

/** The benign messages the rules flag, so an owner tuning the policy sees where to look. */
export function falsePositives(outcomes: readonly Outcome[]): string {
  const ids = outcomes.filter((o) => !o.entry.violating && o.flagged).map((o) => `${o.entry.id} (${o.by.join(", ")})`);
  return wrap(`benign messages the rules flag: ${ids.join("; ") || "none"}`, 100);
}

function wrap(text: string, width: number): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    // Break only between entries, so "bt-02 (house/override)" stays on one line.
    if (line.length + word.length + 1 > width && line !== "") {
      lines.push(line);
      line = "   ";
    }
    line += (line === "" || line === "   " ? "" : " ") + word;
  }
  return [...lines, line].join("\n") + "\n";
}

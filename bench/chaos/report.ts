/**
 * The chaos report: one row per kind of trial with its message outcomes and every promise's
 * violation count, a total row, and each violation spelled out with the trial (kind and seed) that
 * found it and where its logs were kept.
 */
import { addCounts, emptyCounts, type Counts } from "./promises.js";
import type { TrialReport } from "./trial.js";

const COLUMNS: readonly [string, (row: { trials: number; counts: Counts; ms: number }) => string][] = [
  ["trials", (r) => String(r.trials)],
  ["messages", (r) => String(r.counts.messages)],
  ["returned", (r) => String(r.counts.returned)],
  ["delivery-pending", (r) => String(r.counts.deliveryPending)],
  ["outcome-unknown", (r) => String(r.counts.outcomeUnknown)],
  ["refused", (r) => String(r.counts.refused)],
  ["delivered", (r) => String(r.counts.delivered)],
  ["lost", (r) => String(r.counts.lost)],
  ["duplicated", (r) => String(r.counts.duplicated)],
  ["rebound", (r) => String(r.counts.rebound)],
  ["resurrected", (r) => String(r.counts.resurrected)],
  ["phantom", (r) => String(r.counts.phantom)],
  ["other", (r) => String(r.counts.other)],
  ["time", (r) => formatDuration(r.ms)],
];

export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, "0")} s`;
}

/** The per-kind table as a Markdown table (it reads well in a terminal and pastes into the docs). */
export function formatTable(reports: readonly TrialReport[]): string {
  const rows = new Map<string, { trials: number; counts: Counts; ms: number }>();
  const total = { trials: 0, counts: emptyCounts(), ms: 0 };
  for (const report of reports) {
    const row = rows.get(report.fault) ?? { trials: 0, counts: emptyCounts(), ms: 0 };
    for (const into of [row, total]) {
      into.trials++;
      addCounts(into.counts, report.counts);
      into.ms += report.ms;
    }
    rows.set(report.fault, row);
  }
  const body = [...rows.entries()].map(([kind, row]) => [kind, ...COLUMNS.map(([, cell]) => cell(row))]);
  if (rows.size > 1) body.push(["all", ...COLUMNS.map(([, cell]) => cell(total))]);
  const header = ["kind", ...COLUMNS.map(([name]) => name)];
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i]!.length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  const rule = `| ${widths.map((w, i) => (i === 0 ? "-".repeat(w) : `${"-".repeat(w - 1)}:`)).join(" | ")} |`;
  return [line(header), rule, ...body.map(line)].join("\n");
}

/** Every violation, one line each, with the trial that found it. */
export function formatViolations(reports: readonly TrialReport[]): string {
  return reports
    .flatMap((r) =>
      r.violations.map(
        (v) => `${r.fault} seed ${r.seed}: ${v.kind}: ${v.detail}${r.dir ? `\n    kept: ${r.dir}` : ""}`,
      ),
    )
    .join("\n");
}

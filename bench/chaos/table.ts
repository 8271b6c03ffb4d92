/**
 * `node bench/dist/chaos/table.js FILE…`: the table per kind and every violation over the trial
 * reports that runs wrote with `--json` (several runs side by side, or one interrupted).
 */
import { readFileSync } from "node:fs";
import { formatDuration, formatTable, formatViolations } from "./report.js";
import type { TrialReport } from "./trial.js";

const reports: TrialReport[] = process.argv
  .slice(2)
  .flatMap((file) => readFileSync(file, "utf8").split("\n"))
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as TrialReport);
const ms = reports.reduce((sum, r) => sum + r.ms, 0);
process.stdout.write(`${formatTable(reports)}\n\n${reports.length} trials, ${formatDuration(ms)} of trial time\n`);
const violations = formatViolations(reports);
if (violations !== "") process.stdout.write(`\nViolations:\n${violations}\n`);

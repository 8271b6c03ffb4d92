/**
 * `npm run chaos -- [--trials N] [--kinds sender,router,recipient,postgres,full-disk,power,…] [--seed S]
 * [--messages 200] [--in-flight 4] [--strikes 2] [--keep] [--json FILE]`: N crash trials in all, the
 * kinds taking turns, one line per trial (and its report as a JSON line in FILE), then the table per
 * kind and every violation. Exits 1 when any promise broke. Trial i runs with seed S + i; `--kinds <its kind> --seed <its seed> --trials 1` runs it again.
 */
import { appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { parseArgs } from "node:util";
import { FAULTS, faultsNamed } from "./faults.js";
import { lossyfsUnavailable } from "./lossyfs.js";
import { POWER_CUTS } from "./power.js";
import { exitCleanlyOnInterrupt } from "./interrupt.js";
import { formatDuration, formatTable, formatViolations } from "./report.js";
import { runTrial, type TrialReport } from "./trial.js";

const { values } = parseArgs({
  options: {
    trials: { type: "string", default: "10" },
    kinds: { type: "string", default: FAULTS.map((f) => f.name).join(",") },
    seed: { type: "string" },
    messages: { type: "string", default: "200" },
    "in-flight": { type: "string", default: "4" },
    strikes: { type: "string", default: "2" },
    keep: { type: "boolean", default: false },
    json: { type: "string" },
  },
  strict: true,
});

function count(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--${flag} takes a positive whole number`);
  return n;
}

const trials = count("trials", values.trials);
const faults = values.kinds.split(",").flatMap((name) => faultsNamed(name.trim()));
const seed = values.seed === undefined ? Math.floor(Math.random() * 1_000_000) : count("seed", values.seed);
const messages = count("messages", values.messages);
const inFlight = count("in-flight", values["in-flight"]);
const strikes = count("strikes", values.strikes);
if (faults.some((f) => f.name === "full-disk") && process.getuid?.() !== 0) {
  throw new Error("the full-disk trials mount a tmpfs and must run as root (or leave them out with --kinds)");
}
if (faults.some((f) => POWER_CUTS.includes(f))) {
  const why = await lossyfsUnavailable(tmpdir());
  if (why !== undefined) throw new Error(`the power-cut trials need lossyfs, which cannot be mounted here: ${why}`);
}

process.stdout.write(
  `${trials} trial(s), ${faults.map((f) => f.name).join(", ")} in turn; seeds ${seed}..${seed + trials - 1}; ` +
    `${messages} messages, ${inFlight} in flight, ${strikes} strike(s) per trial\n`,
);
exitCleanlyOnInterrupt();
const width = Math.max(...faults.map((f) => f.name.length));
const reports: TrialReport[] = [];
const started = Date.now();
for (let i = 0; i < trials; i++) {
  const fault = faults[i % faults.length]!;
  const report = await runTrial({ fault, seed: seed + i, messages, inFlight, strikes, keep: values.keep });
  reports.push(report);
  if (values.json !== undefined) appendFileSync(values.json, `${JSON.stringify(report)}\n`);
  const c = report.counts;
  process.stdout.write(
    `${String(i + 1).padStart(4)} ${fault.name.padEnd(width)} seed ${String(report.seed).padEnd(7)} ` +
      `${String(c.messages).padStart(4)} messages (${c.returned} returned, ${c.deliveryPending} pending, ` +
      `${c.outcomeUnknown} unknown, ${c.refused} refused); struck ${report.struck.join(", ") || "nothing"}; ` +
      `${report.violations.length} violation(s), ${formatDuration(report.ms)}\n`,
  );
}
process.stdout.write(`\n${formatTable(reports)}\n\n${trials} trials in ${formatDuration(Date.now() - started)}\n`);
const violations = formatViolations(reports);
if (violations !== "") {
  process.stdout.write(`\nViolations:\n${violations}\n`);
  process.exitCode = 1;
}

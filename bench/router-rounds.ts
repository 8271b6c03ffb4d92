/**
 * The router section's rounds: the anchor (JetStream with synchronous writes), our router and the
 * platform floor (the skeleton certifier: what a router doing only what the design requires
 * reaches) in turn, each a whole load after its own warm-up, several times. A row is the round
 * whose ratio is the median, so a burst of the shared VM's neighbours moves one round, not the row;
 * every round is printed under the table.
 */
import { jetStreamRate, type JetStreamLoad } from "./jetstream.js";
import { routerCertifyRate, type CertifyRun, type MeasuredRouter, type RouterRun } from "./router-certify.js";
import { skeletonCertifyRate } from "./skeleton-floor.js";
import { medianBy, perSecond, ratio, row, type Row } from "./table.js";

export interface RouterRound {
  readonly jsSynced: number;
  readonly sqlite: RouterRun;
  readonly skeleton: CertifyRun;
}

export async function alternatedRounds(options: {
  readonly rounds: number;
  readonly load: JetStreamLoad;
  readonly syncedUrl: string;
  readonly router: MeasuredRouter;
  readonly root: string;
}): Promise<RouterRound[]> {
  const perSender = options.load.perPublisher;
  const rounds: RouterRound[] = [];
  for (let round = 0; round < options.rounds; round++) {
    rounds.push({
      jsSynced: await jetStreamRate(options.syncedUrl, options.load),
      sqlite: await routerCertifyRate(options.router, { perSender }),
      skeleton: await skeletonCertifyRate(options.root, { perSender }),
    });
  }
  return rounds;
}

const NOTE = "8 links × 1 in flight, 300 B";
const synced = (value: number) => ({ name: "JetStream, store chattr +S (fsync per message)", value });
const cpu = (value: number) => `${value.toFixed(3)} ms`;

/** A round's line under the table: each side's rate and CPU a record, and our group commits. */
function roundLine(r: RouterRound, i: number): string {
  const commits =
    r.sqlite.commits === undefined
      ? ""
      : `; commits of ${r.sqlite.commits.appendsPerCommit.toFixed(1)} proposals, ${r.sqlite.commits.commitMs.toFixed(2)} ms each`;
  return (
    `round ${i + 1}: JetStream +S ${perSecond(r.jsSynced)}, ` +
    `ours ${perSecond(r.sqlite.rate)} (${cpu(r.sqlite.cpuMs)} CPU a record${commits}), ` +
    `skeleton ${perSecond(r.skeleton.rate)} (${cpu(r.skeleton.cpuMs)} CPU a record): ` +
    `ours ${ratio(r.sqlite.rate, r.jsSynced)} JetStream +S, ${ratio(r.sqlite.rate, r.skeleton.rate)} the skeleton\n`
  );
}

/** The section's rows from its rounds, JetStream's default mode and the PostgreSQL router's rate. */
export function routerRows(
  rounds: readonly RouterRound[],
  jsDefault: number,
  postgres: number | undefined,
): { rows: Row[]; text: string } {
  const againstAnchor = medianBy(rounds, (r) => r.sqlite.rate / r.jsSynced);
  const againstFloor = medianBy(rounds, (r) => r.sqlite.rate / r.skeleton.rate);
  const floorAgainstAnchor = medianBy(rounds, (r) => r.skeleton.rate / r.jsSynced);
  const cpuAgainstFloor = medianBy(rounds, (r) => r.sqlite.cpuMs / r.skeleton.cpuMs);
  const ours = `router certifications/s, SQLite (${NOTE})`;
  const floor = { name: "platform floor (bench/skeleton.ts certifier, same load)", value: againstFloor.skeleton.rate };
  const rows = [
    row(ours, againstAnchor.sqlite.rate, perSecond, synced(againstAnchor.jsSynced), "≥ 2×"),
    row(
      ours,
      againstAnchor.sqlite.rate,
      perSecond,
      { name: "JetStream default (acks before fsync)", value: jsDefault },
      "≥ 1×",
    ),
    row(ours, againstFloor.sqlite.rate, perSecond, floor, "the nearest achievable"),
    row(
      `router CPU per certified record, SQLite (${NOTE})`,
      cpuAgainstFloor.sqlite.cpuMs,
      cpu,
      { name: "the skeleton certifier's, same load", value: cpuAgainstFloor.skeleton.cpuMs, format: cpu },
      "the nearest achievable",
    ),
    row(
      `platform floor (skeleton certifier, ${NOTE})`,
      floorAgainstAnchor.skeleton.rate,
      perSecond,
      synced(floorAgainstAnchor.jsSynced),
      "(the floor against the anchor)",
    ),
  ];
  if (postgres !== undefined) {
    rows.push(
      row(`router certifications/s, PostgreSQL (${NOTE})`, postgres, perSecond, synced(againstAnchor.jsSynced), "≥ 2×"),
    );
  }
  const text =
    `\nRouter certifications/s, each alternated round (${NOTE}; rows above: the median round)\n\n` +
    rounds.map(roundLine).join("");
  return { rows, text };
}

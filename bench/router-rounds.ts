/**
 * The router section's rounds: the anchor (JetStream with synchronous writes), our router and the
 * platform floor (the skeleton certifier: what a router doing only what the design requires
 * reaches) in turn, each a whole load after its own warm-up, several times. A row is the round
 * whose ratio is the median, so a burst of the shared VM's neighbours moves one round, not the row;
 * every round is printed under the table.
 */
import { jetStreamRate, type JetStreamLoad } from "./jetstream.js";
import { routerCertifyRate } from "./router-certify.js";
import { skeletonCertifyRate } from "./skeleton-floor.js";
import { medianBy, perSecond, ratio, row, type Row } from "./table.js";

export interface RouterRound {
  readonly jsSynced: number;
  readonly sqlite: number;
  readonly skeleton: number;
}

export async function alternatedRounds(options: {
  readonly rounds: number;
  readonly load: JetStreamLoad;
  readonly syncedUrl: string;
  readonly routerUrl: string;
  readonly root: string;
}): Promise<RouterRound[]> {
  const perSender = options.load.perPublisher;
  const rounds: RouterRound[] = [];
  for (let round = 0; round < options.rounds; round++) {
    rounds.push({
      jsSynced: await jetStreamRate(options.syncedUrl, options.load),
      sqlite: await routerCertifyRate(options.routerUrl, { perSender }),
      skeleton: await skeletonCertifyRate(options.root, { perSender }),
    });
  }
  return rounds;
}

const NOTE = "8 links × 1 in flight, 300 B";
const synced = (value: number) => ({ name: "JetStream, store chattr +S (fsync per message)", value });

/** The section's rows from its rounds, JetStream's default mode and the PostgreSQL router's rate. */
export function routerRows(
  rounds: readonly RouterRound[],
  jsDefault: number,
  postgres: number | undefined,
): { rows: Row[]; text: string } {
  const againstAnchor = medianBy(rounds, (r) => r.sqlite / r.jsSynced);
  const againstFloor = medianBy(rounds, (r) => r.sqlite / r.skeleton);
  const floorAgainstAnchor = medianBy(rounds, (r) => r.skeleton / r.jsSynced);
  const ours = `router certifications/s, SQLite (${NOTE})`;
  const floor = { name: "platform floor (bench/skeleton.ts certifier, same load)", value: againstFloor.skeleton };
  const rows = [
    row(ours, againstAnchor.sqlite, perSecond, synced(againstAnchor.jsSynced), "≥ 2×"),
    row(
      ours,
      againstAnchor.sqlite,
      perSecond,
      { name: "JetStream default (acks before fsync)", value: jsDefault },
      "≥ 1×",
    ),
    row(ours, againstFloor.sqlite, perSecond, floor, "the nearest achievable"),
    row(
      `platform floor (skeleton certifier, ${NOTE})`,
      floorAgainstAnchor.skeleton,
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
    rounds
      .map(
        (r, i) =>
          `round ${i + 1}: JetStream +S ${perSecond(r.jsSynced)}, ours ${perSecond(r.sqlite)}, ` +
          `skeleton ${perSecond(r.skeleton)}: ours ${ratio(r.sqlite, r.jsSynced)} JetStream +S, ` +
          `${ratio(r.sqlite, r.skeleton)} the skeleton\n`,
      )
      .join("");
  return { rows, text };
}

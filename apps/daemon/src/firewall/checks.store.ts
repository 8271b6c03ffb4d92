/**
 * SQL for the firewall's audit: one row per settled check, with each middleware's verdict (or its
 * error), what was decided and what happened. An inbound record's verdict is read back by its hash
 * when an all_gather result is projected locally.
 */
import type { CheckedGuidance } from "@social-harness/protocol";
import type { Selectable } from "kysely";
import type { DbOrTrx } from "../db/database.js";
import { readInSlices } from "../db/in-slices.js";
import type { FirewallChecksTable } from "./firewall.table.js";
import type { Direction, FirewallMode } from "./policy.schema.js";
import type { Subject } from "./subjects.js";
import type { Decision, MiddlewareVerdict } from "./verdicts.js";

/** What happened: an inbound subject was admitted or held; a send went out or was refused (or held). */
export type CheckOutcome = "admitted" | "held" | "sent" | "refused";

export interface CheckRecord {
  readonly id: number;
  readonly checkId: string;
  readonly direction: Direction;
  readonly conv: string;
  readonly recordHash: string | null;
  readonly postId: string | null;
  readonly subjects: readonly Subject[];
  readonly revision: number;
  readonly mode: FirewallMode;
  readonly decision: Decision;
  readonly outcome: CheckOutcome;
  readonly middlewares: readonly MiddlewareVerdict[];
  readonly guidance: CheckedGuidance | null;
  /** How many of the check's captures were stale when its intent was bound (outbound). */
  readonly stale: number;
  readonly latencyUs: number;
  readonly createdAt: number;
}

function toCheckRecord(row: Selectable<FirewallChecksTable>): CheckRecord {
  return {
    id: row.id,
    checkId: row.check_id,
    direction: row.direction as Direction,
    conv: row.conv,
    recordHash: row.record_hash,
    postId: row.post_id,
    subjects: JSON.parse(row.subjects) as Subject[],
    revision: row.policy_revision,
    mode: row.mode as FirewallMode,
    decision: row.decision as Decision,
    outcome: row.outcome as CheckOutcome,
    middlewares: JSON.parse(row.middlewares) as MiddlewareVerdict[],
    guidance: row.guidance === null ? null : (JSON.parse(row.guidance) as CheckedGuidance),
    stale: row.stale,
    latencyUs: row.latency_us,
    createdAt: row.created_at,
  };
}

export async function insertCheck(db: DbOrTrx, check: Omit<CheckRecord, "id">): Promise<void> {
  await db
    .insertInto("firewall_checks")
    .values({
      check_id: check.checkId,
      direction: check.direction,
      conv: check.conv,
      record_hash: check.recordHash,
      post_id: check.postId,
      subjects: JSON.stringify(check.subjects),
      policy_revision: check.revision,
      mode: check.mode,
      decision: check.decision,
      outcome: check.outcome,
      middlewares: JSON.stringify(check.middlewares),
      guidance: check.guidance === null ? null : JSON.stringify(check.guidance),
      stale: check.stale,
      latency_us: check.latencyUs,
      created_at: check.createdAt,
    })
    .execute();
}

/** Checks newest first, before the row `before` when given. */
export async function listChecks(db: DbOrTrx, before: number | undefined, limit: number): Promise<CheckRecord[]> {
  let query = db.selectFrom("firewall_checks").selectAll();
  if (before !== undefined) query = query.where("id", "<", before);
  return (await query.orderBy("id", "desc").limit(limit).execute()).map(toCheckRecord);
}

export async function findChecks(db: DbOrTrx, checkIds: readonly string[]): Promise<CheckRecord[]> {
  if (checkIds.length === 0) return [];
  const rows = await db
    .selectFrom("firewall_checks")
    .selectAll()
    .where("check_id", "in", [...checkIds])
    .execute();
  return rows.map(toCheckRecord);
}

/** The settled inbound check of a record, if it had one. */
export async function inboundCheckOf(db: DbOrTrx, recordHash: string): Promise<CheckRecord | undefined> {
  return (await inboundChecksOf(db, [recordHash])).get(recordHash);
}

/**
 * The newest settled inbound check of each record that had one, by record hash: one query for a
 * close's every answer instead of one per answer.
 */
export async function inboundChecksOf(
  db: DbOrTrx,
  recordHashes: readonly string[],
): Promise<ReadonlyMap<string, CheckRecord>> {
  const rows = await readInSlices(recordHashes, (slice) =>
    db
      .selectFrom("firewall_checks")
      .selectAll()
      .where("record_hash", "in", slice)
      .where("direction", "=", "inbound")
      .orderBy("id", "asc")
      .execute(),
  );
  // Ascending ids (a record's checks are all in its one slice): its newest check is set last.
  return new Map(rows.map((row) => [row.record_hash!, toCheckRecord(row)]));
}

/** The settled outbound check of a post of ours, if it had one. */
export async function outboundCheckOf(db: DbOrTrx, postId: string): Promise<CheckRecord | undefined> {
  const row = await db
    .selectFrom("firewall_checks")
    .selectAll()
    .where("post_id", "=", postId)
    .where("direction", "=", "outbound")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? undefined : toCheckRecord(row);
}

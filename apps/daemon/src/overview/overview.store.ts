/**
 * SQL for the owner's Overview: every series is counted by SQLite over the window, grouped into
 * interval buckets (`(t - from) / interval`), so a week of history costs one scan per series and
 * returns at most a few hundred rows, never the records themselves.
 */
import { sql } from "kysely";
import type { Db } from "../db/database.js";

export interface Window {
  /** A multiple of `intervalMs`. */
  readonly from: number;
  /** Whole minutes: webhook attempts are kept counted by the minute. */
  readonly intervalMs: number;
}

export interface MessageRow {
  readonly bucket: number;
  readonly direction: "sent" | "received";
  readonly kind: "direct" | "group" | "gather" | "all_gather";
  readonly count: number;
}

/*
 * A gather or all_gather request is the record whose collective part has op "gather" or
 * "all_gather". In the record's dCBOR the key "op" (62 6f 70) is followed directly by its value,
 * text "gather" (66 …) or "all_gather" (6a …); a text part holds its text inside one longer
 * string, so these bytes appear there only if the text itself spells "bopfgather" or "bopjall_gather".
 */
const GATHER = sql.raw("X'626F7066676174686572'");
const ALL_GATHER = sql.raw("X'626F706A616C6C5F676174686572'");

export async function countMessages(db: Db, self: string, window: Window): Promise<MessageRow[]> {
  const { rows } = await sql<MessageRow>`
    SELECT CAST((at - ${window.from}) / ${window.intervalMs} AS INTEGER) AS bucket,
      CASE WHEN author = ${self} THEN 'sent' ELSE 'received' END AS direction,
      CASE WHEN instr(bytes, ${GATHER}) > 0 THEN 'gather'
           WHEN instr(bytes, ${ALL_GATHER}) > 0 THEN 'all_gather'
           WHEN conv LIKE 'group:%' THEN 'group' ELSE 'direct' END AS kind,
      count(*) AS count
    FROM records WHERE kind = 'post' AND at >= ${window.from}
    GROUP BY 1, 2, 3`.execute(db);
  return rows;
}

export interface FlowRow {
  readonly bucket: number;
  readonly opened: number;
  readonly closed: number;
}

export interface Flow {
  /** Open at the start of the window. */
  readonly before: number;
  readonly rows: readonly FlowRow[];
}

/** Inbox items opened and settled per bucket, and how many were pending when the window began. */
export async function inboxFlow(db: Db, window: Window): Promise<Flow> {
  const { from, intervalMs } = window;
  const [before, rows] = await Promise.all([
    sql<{ n: number }>`SELECT count(*) AS n FROM inbox
      WHERE created_at < ${from} AND (settled_at IS NULL OR settled_at >= ${from})`.execute(db),
    sql<FlowRow>`
      SELECT bucket, sum(opened) AS opened, sum(closed) AS closed FROM (
        SELECT CAST((created_at - ${from}) / ${intervalMs} AS INTEGER) AS bucket, 1 AS opened, 0 AS closed
          FROM inbox WHERE created_at >= ${from}
        UNION ALL
        SELECT CAST((settled_at - ${from}) / ${intervalMs} AS INTEGER), 0, 1
          FROM inbox WHERE settled_at >= ${from}
      ) GROUP BY bucket`.execute(db),
  ]);
  return { before: before.rows[0]?.n ?? 0, rows: rows.rows };
}

/** Holds opened and ended (released or discarded) per bucket, and how many were held at the start. */
export async function holdFlow(db: Db, window: Window): Promise<Flow> {
  const { from, intervalMs } = window;
  const [before, rows] = await Promise.all([
    sql<{ n: number }>`SELECT count(*) AS n FROM holds
      WHERE created_at < ${from} AND coalesce(released_at, discarded_at, ${from}) >= ${from}`.execute(db),
    sql<FlowRow>`
      SELECT bucket, sum(opened) AS opened, sum(closed) AS closed FROM (
        SELECT CAST((created_at - ${from}) / ${intervalMs} AS INTEGER) AS bucket, 1 AS opened, 0 AS closed
          FROM holds WHERE created_at >= ${from}
        UNION ALL
        SELECT CAST((coalesce(released_at, discarded_at) - ${from}) / ${intervalMs} AS INTEGER), 0, 1
          FROM holds WHERE coalesce(released_at, discarded_at) >= ${from}
      ) GROUP BY bucket`.execute(db),
  ]);
  return { before: before.rows[0]?.n ?? 0, rows: rows.rows };
}

export interface DecisionRow {
  readonly bucket: number;
  readonly direction: "inbound" | "outbound";
  /** "allow", "guidance" (allowed with guidance), "hold", "refuse" or "error" (a middleware failed). */
  readonly decision: "allow" | "guidance" | "hold" | "refuse" | "error";
  readonly count: number;
}

export async function countDecisions(db: Db, window: Window): Promise<DecisionRow[]> {
  const { rows } = await sql<DecisionRow>`
    SELECT CAST((created_at - ${window.from}) / ${window.intervalMs} AS INTEGER) AS bucket, direction,
      CASE WHEN EXISTS (SELECT 1 FROM json_each(middlewares) m WHERE json_extract(m.value, '$.error') IS NOT NULL)
             THEN 'error'
           WHEN decision = 'allow' AND guidance IS NOT NULL THEN 'guidance'
           ELSE decision END AS decision,
      count(*) AS count
    FROM firewall_checks WHERE created_at >= ${window.from}
    GROUP BY bucket, direction, 3`.execute(db);
  return rows;
}

export interface JudgeRow {
  readonly bucket: number;
  readonly calls: number;
  readonly errors: number;
  readonly meanUs: number;
  readonly maxUs: number;
}

/** The model middlewares' (the judge's) calls, errors and latency per bucket. */
export async function judgeLatency(db: Db, window: Window): Promise<JudgeRow[]> {
  const { rows } = await sql<JudgeRow>`
    SELECT CAST((c.created_at - ${window.from}) / ${window.intervalMs} AS INTEGER) AS bucket,
      count(*) AS calls,
      sum(json_extract(m.value, '$.error') IS NOT NULL) AS errors,
      avg(json_extract(m.value, '$.latencyUs')) AS meanUs,
      max(json_extract(m.value, '$.latencyUs')) AS maxUs
    FROM firewall_checks c, json_each(c.middlewares) m
    WHERE c.created_at >= ${window.from} AND json_extract(m.value, '$.kind') = 'model'
    GROUP BY bucket`.execute(db);
  return rows;
}

export interface AttemptRow {
  readonly subscriptionId: string;
  readonly bucket: number;
  readonly delivered: number;
  readonly failed: number;
  readonly retries: number;
  readonly meanMs: number;
}

export async function countAttempts(db: Db, window: Window): Promise<AttemptRow[]> {
  const { rows } = await sql<AttemptRow>`
    SELECT subscription_id AS subscriptionId,
      CAST((minute - ${window.from}) / ${window.intervalMs} AS INTEGER) AS bucket,
      sum(delivered) AS delivered, sum(failed) AS failed, sum(retries) AS retries,
      CAST(sum(latency_ms) AS REAL) / sum(delivered + failed) AS meanMs
    FROM webhook_attempt_minutes WHERE minute >= ${window.from}
    GROUP BY subscriptionId, bucket`.execute(db);
  return rows;
}

export interface SubscriptionHealthRow {
  readonly id: string;
  readonly eventName: string;
  readonly state: string;
  readonly terminalStatus: number | null;
  readonly leaseExpiresAt: number;
  readonly failingSince: number | null;
  readonly lastError: string | null;
  readonly delivered: number;
}

/** Every registration not revoked, plus revoked ones that made attempts inside the window. */
export async function subscriptionHealth(db: Db, window: Window): Promise<SubscriptionHealthRow[]> {
  const { rows } = await sql<SubscriptionHealthRow>`
    SELECT id, event_name AS eventName, state, terminal_status AS terminalStatus,
      lease_expires_at AS leaseExpiresAt, failing_since AS failingSince, last_error AS lastError, delivered
    FROM webhook_subscriptions s
    WHERE state <> 'revoked' OR EXISTS (SELECT 1 FROM webhook_attempt_minutes a WHERE a.subscription_id = s.id AND a.minute >= ${window.from})
    ORDER BY created_at`.execute(db);
  return rows;
}

export interface TalkRow {
  readonly conv: string;
  readonly author: string;
  readonly count: number;
  /** JSON list of the conversation's members. */
  readonly members: string;
}

/** Posts per conversation and author inside the window, with each conversation's members. */
export async function countTalk(db: Db, window: Window): Promise<TalkRow[]> {
  const { rows } = await sql<TalkRow>`
    SELECT r.conv AS conv, r.author AS author, count(*) AS count, c.members AS members
    FROM records r JOIN conversations c ON c.conv = r.conv
    WHERE r.kind = 'post' AND r.at >= ${window.from}
    GROUP BY r.conv, r.author`.execute(db);
  return rows;
}

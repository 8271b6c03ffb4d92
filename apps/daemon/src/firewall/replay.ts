/**
 * Replay (SPEC §10 `firewall.replay`): what a draft policy would decide over the last stored
 * records, beside what the current one did, so an owner can tune a policy on real traffic before
 * switching it on. The draft runs on its own: its rate windows follow the records' own times, and
 * nothing it decides is stored or acted on. A draft with a judge asks that judge.
 */
import {
  agentAddress,
  membersOfConversation,
  parseMessageAddress,
  readContent,
  readRecord,
  type RecordFields,
} from "@social-harness/protocol";
import { projectRecord } from "../ingress/projection.js";
import { subjectOfSend } from "../posts/send-subject.js";
import type { StoredRecordRow } from "../history/history.store.js";
import type { CheckRecord } from "./checks.store.js";
import type { CompiledPolicy } from "./engine.js";
import type { Direction } from "./policy.schema.js";
import { answerText, conversationAddress, recipientsOf, subjectOfItem, type Subject } from "./subjects.js";
import type { Decision } from "./verdicts.js";

export interface ReplayEntry {
  readonly recordHash: string;
  readonly at: number;
  readonly direction: Direction;
  readonly subject: Subject;
  /** What the current policy decided when the record passed, if it was checked. */
  readonly was: { readonly checkId: string; readonly decision: Decision; readonly outcome: string } | null;
  /** What the draft decides, with the rules that spoke; null when the draft checks nothing here. */
  readonly would: {
    readonly decision: Decision;
    readonly rules: readonly { middlewareId: string; ruleId: string; decision: Decision }[];
    readonly errors: readonly string[];
  } | null;
  readonly changed: boolean;
}

export interface ReplaySummary {
  readonly records: number;
  readonly checked: number;
  readonly changed: number;
  /** Counts by "was → would" (e.g. "allow → hold"); "unchecked" where no check ran. */
  readonly changes: Record<string, number>;
}

/** What replay needs to know beyond the records themselves. */
export interface ReplayContext {
  setNow(at: number): void;
  arrived(at: number): void;
  checkOf(row: StoredRecordRow): Promise<CheckRecord | undefined>;
  /** The question an all_gather result shows here ("" when withheld), as the live check reads it. */
  readonly resultQuestion: (id: string) => Promise<string>;
}

/**
 * The subject a stored record presents to a check, seen by `self`; undefined when none applies.
 * An all_gather close is checked as the collectiveResult it becomes, whose words are its question.
 */
export async function subjectOfRecord(
  self: string,
  row: StoredRecordRow,
  resultQuestion: ReplayContext["resultQuestion"],
): Promise<{ direction: Direction; subject: Subject } | undefined> {
  const read = readRecord(row.bytes);
  if (!read.ok || read.record.kind === "genesis") return undefined;
  const record: RecordFields = read.record;
  if (record.author === self) {
    const address = parseMessageAddress(conversationAddress(self, record.conv), self);
    if (!address.ok) return undefined;
    const subject = subjectOfSend(self, address.address, record.postId, record.content);
    return subject === undefined
      ? undefined
      : { direction: "outbound", subject: { ...subject, sender: agentAddress(self) } };
  }
  const projection = projectRecord(self, record, membersOfConversation(record.conv) ?? []);
  if (projection.kind === "deliver") {
    const item = projection.item;
    return { direction: "inbound", subject: subjectOfItem(self, { conv: record.conv, sender: record.author, item }) };
  }
  if (projection.kind !== "collective") return undefined;
  const content = readContent(record.content);
  const part = content.ok ? content.collective : undefined;
  const base = {
    sender: agentAddress(record.author),
    recipients: recipientsOf(record.conv, record.author),
    conversation: conversationAddress(self, record.conv),
  };
  if (part?.op === "answer")
    return { direction: "inbound", subject: { ...base, id: part.id, kind: "answer", text: answerText(part.response) } };
  if (part?.op === "gather" || part?.op === "all_gather") {
    const question = projection.message
      .filter((p) => p.type === "text")
      .map((p) => (p as { text: string }).text)
      .join("\n");
    return { direction: "inbound", subject: { ...base, id: part.id, kind: "collectiveRequest", text: question } };
  }
  if (part?.op === "close")
    return {
      direction: "inbound",
      subject: { ...base, id: part.id, kind: "collectiveResult", text: await resultQuestion(part.id) },
    };
  return undefined;
}

export async function replayRecords(
  self: string,
  draft: CompiledPolicy,
  rows: readonly StoredRecordRow[],
  context: ReplayContext,
): Promise<{ summary: ReplaySummary; entries: ReplayEntry[] }> {
  const entries: ReplayEntry[] = [];
  const changes: Record<string, number> = {};
  for (const row of rows) {
    const seen = await subjectOfRecord(self, row, context.resultQuestion);
    if (seen === undefined) continue;
    context.setNow(row.at);
    if (seen.direction === "inbound") context.arrived(row.at);
    const assessment = draft.active(seen.direction) ? await draft.assess(seen.direction, seen.subject) : undefined;
    const check = await context.checkOf(row);
    const was =
      check === undefined ? null : { checkId: check.checkId, decision: check.decision, outcome: check.outcome };
    const would =
      assessment === undefined
        ? null
        : {
            decision: assessment.decision,
            rules: assessment.verdicts.flatMap((v) =>
              v.rules.map((r) => ({ middlewareId: v.middlewareId, ruleId: r.ruleId, decision: r.decision })),
            ),
            errors: assessment.verdicts.flatMap((v) =>
              v.error === undefined ? [] : [`${v.middlewareId}: ${v.error}`],
            ),
          };
    const before = was?.decision ?? "unchecked";
    const after = would?.decision ?? "unchecked";
    const changed = before !== after && !(before === "unchecked" && after === "allow");
    if (changed) changes[`${before} → ${after}`] = (changes[`${before} → ${after}`] ?? 0) + 1;
    entries.push({
      recordHash: row.hash,
      at: row.at,
      direction: seen.direction,
      subject: seen.subject,
      was,
      would,
      changed,
    });
  }
  return {
    summary: {
      records: entries.length,
      checked: entries.filter((e) => e.would !== null).length,
      changed: entries.filter((e) => e.changed).length,
      changes,
    },
    entries,
  };
}

/**
 * The all_gather result, derived from certified history (seed 003 "Operations"): the close lists
 * the record hash of each counted answer, and every daemon that holds the request reads those
 * answer records against the request's schema, so all derive the same outcomes from the same
 * records. Each daemon then projects the result locally (SPEC §10): an answer or question its own
 * firewall held reads as withheld, and the guidance of the checks that admitted them rides along.
 */
import {
  agentAddress,
  readContent,
  readRecord,
  type CheckedGuidance,
  type ClosePart,
  type InboundItem,
  type LocalGuidance,
  type MemberOutcome,
  type RecordFields,
  type RequestedSchema,
  type Withheld,
} from "@social-harness/protocol";
import type { DbOrTrx } from "../db/database.js";
import type { History } from "../history/history.service.js";
import type { StoredRecordRow } from "../history/history.store.js";
import { findHeldRequest, recordResult } from "./collectives.store.js";
import { outcomeOfAnswer } from "./outcomes.js";
import { questionOf } from "./request-intake.js";

/**
 * What this daemon's firewall made of a record: withheld (with the guidance its check carried, for
 * when the owner releases it), or admitted with guidance.
 */
export interface LocalVerdict {
  readonly withheld?: Withheld;
  readonly guidance?: CheckedGuidance;
}

/** What this daemon's firewall made of each of some records, by hash; a record it never checked is absent. */
export type VerdictLookup = (
  db: DbOrTrx,
  recordHashes: readonly string[],
) => Promise<ReadonlyMap<string, LocalVerdict>>;

export interface CloseInput {
  readonly record: Pick<RecordFields, "conv" | "author">;
  readonly hash: string;
  readonly part: ClosePart;
}

export type CloseOutcome =
  | {
      readonly kind: "result";
      readonly item: Extract<InboundItem, { kind: "collectiveResult" }>;
      readonly guidance: LocalGuidance | undefined;
    }
  | { readonly kind: "consume"; readonly reason: string };

/** Derives a close's local result without writing anything; a close already applied is consumed. */
export async function deriveClose(
  db: DbOrTrx,
  history: History,
  close: CloseInput,
  verdictsOf: VerdictLookup,
): Promise<CloseOutcome> {
  const { record, part } = close;
  const held = await findHeldRequest(db, part.id);
  if (held?.op !== "all_gather" || held.conv !== record.conv || held.requester !== record.author) {
    return { kind: "consume", reason: "a close for a request this daemon does not hold" };
  }
  if (held.resultToken !== null) return { kind: "consume", reason: "the request's close was already applied" };
  // Every record the close names and what this daemon's firewall made of each, in two reads.
  const answered = part.answers.flatMap(({ answer }) => (answer === null ? [] : [answer]));
  const hashes = [held.recordHash, ...answered];
  const records = await history.recordsByHash(db, record.conv, hashes);
  const verdicts = await verdictsOf(db, hashes);
  const verdictNow = (hash: string) => currentVerdict(verdicts.get(hash), records.get(hash));
  const request = records.get(held.recordHash);
  const requestRead = request === undefined ? undefined : readRecord(request.bytes);
  const requestContent = requestRead?.ok === true ? readContent(requestRead.record.content) : undefined;
  if (requestContent?.ok !== true || requestContent.collective?.op !== "all_gather") {
    return { kind: "consume", reason: "a close whose request record cannot be read" };
  }
  const schema = requestContent.collective.requestedSchema;
  const outcomes: MemberOutcome[] = [];
  const answers: (CheckedGuidance & { member: string })[] = [];
  for (const { member, answer } of part.answers) {
    if (answer === null) {
      outcomes.push({ member: agentAddress(member), outcome: { kind: "no-answer" } });
      continue;
    }
    const verdict = verdictNow(answer);
    if (verdict?.withheld === undefined && verdict?.guidance !== undefined)
      answers.push({ ...verdict.guidance, member: agentAddress(member) });
    outcomes.push({
      member: agentAddress(member),
      outcome:
        verdict?.withheld ?? outcomeOfRecord(records.get(answer), { member, id: part.id, conv: record.conv, schema }),
    });
  }
  // A member's firewall may have held the requester's question; ours is never checked inbound.
  const questionVerdict = verdictNow(held.recordHash);
  const questionGuidance = questionVerdict?.withheld === undefined ? questionVerdict?.guidance : undefined;
  const [first, ...rest] = outcomes;
  const guidance =
    questionGuidance === undefined && answers.length === 0
      ? undefined
      : { ...(questionGuidance === undefined ? {} : { question: questionGuidance }), answers };
  return {
    kind: "result",
    item: {
      kind: "collectiveResult",
      op: "all_gather",
      id: part.id,
      to: record.conv,
      question: questionVerdict?.withheld ?? questionOf(requestContent.message),
      outcomes: [first!, ...rest],
    },
    guidance,
  };
}

/** Derives the result and marks the close applied, inside the caller's transaction. */
export async function applyClose(
  trx: DbOrTrx,
  history: History,
  close: CloseInput,
  verdictsOf: VerdictLookup,
): Promise<CloseOutcome> {
  const outcome = await deriveClose(trx, history, close, verdictsOf);
  if (outcome.kind === "result") await recordResult(trx, close.part.id, close.hash);
  return outcome;
}

/**
 * The verdict as it stands now: a record the firewall held and the owner released since (its
 * disposition is "delivered") is admitted like any other, with the guidance its check carried.
 */
function currentVerdict(
  verdict: LocalVerdict | undefined,
  stored: StoredRecordRow | undefined,
): LocalVerdict | undefined {
  if (verdict?.withheld === undefined) return verdict;
  if (stored?.disposition !== "delivered") return verdict;
  return verdict.guidance === undefined ? undefined : { guidance: verdict.guidance };
}

function outcomeOfRecord(
  stored: StoredRecordRow | undefined,
  input: { member: string; id: string; conv: string; schema: RequestedSchema },
): MemberOutcome["outcome"] {
  const invalid = { kind: "invalid" as const, reason: "the close names a record that is not this member's answer" };
  if (stored === undefined || stored.conv !== input.conv || stored.author !== input.member) return invalid;
  const read = readRecord(stored.bytes);
  const content = read.ok ? readContent(read.record.content) : undefined;
  if (content?.ok !== true || content.collective?.op !== "answer" || content.collective.id !== input.id) return invalid;
  return outcomeOfAnswer(input.schema, content.collective.response);
}

/**
 * The question of the all_gather request `id` as this daemon's result shows it: its text, or
 * undefined when this daemon does not hold the request or its firewall withheld the question.
 */
export async function resultQuestionOf(
  db: DbOrTrx,
  history: History,
  id: string,
  verdictsOf: VerdictLookup,
): Promise<string | undefined> {
  const held = await findHeldRequest(db, id);
  if (held?.op !== "all_gather") return undefined;
  if ((await verdictsOf(db, [held.recordHash])).get(held.recordHash)?.withheld !== undefined) return undefined;
  const request = await history.recordByHash(db, held.conv, held.recordHash);
  const read = request === undefined ? undefined : readRecord(request.bytes);
  const content = read?.ok === true ? readContent(read.record.content) : undefined;
  return content?.ok === true ? questionOf(content.message) : undefined;
}

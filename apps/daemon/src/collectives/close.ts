/**
 * The all_gather result, derived from certified history (seed 003 "Operations"): the close lists
 * the record hash of each counted answer, and every daemon that holds the request reads those
 * answer records against the request's schema. The requester and every member apply the same
 * function to the same records, so they all derive the identical result.
 */
import {
  agentAddress,
  readContent,
  readRecord,
  type ClosePart,
  type InboundItem,
  type MemberOutcome,
  type RecordFields,
  type RequestedSchema,
} from "@social-harness/protocol";
import type { Trx } from "../db/database.js";
import type { History } from "../history/history.service.js";
import { findHeldRequest, recordResult } from "./collectives.store.js";
import { outcomeOfAnswer } from "./outcomes.js";
import { questionOf } from "./request-intake.js";

export type CloseOutcome =
  | { readonly kind: "result"; readonly item: Extract<InboundItem, { kind: "collectiveResult" }> }
  | { readonly kind: "consume"; readonly reason: string };

/** Applies a close once, inside the storing transaction; a second close of the same id is consumed. */
export async function applyClose(
  trx: Trx,
  history: History,
  close: { record: Pick<RecordFields, "conv" | "author">; hash: string; part: ClosePart },
): Promise<CloseOutcome> {
  const { record, hash, part } = close;
  const held = await findHeldRequest(trx, part.id);
  if (held?.op !== "all_gather" || held.conv !== record.conv || held.requester !== record.author) {
    return { kind: "consume", reason: "a close for a request this daemon does not hold" };
  }
  if (held.resultToken !== null) return { kind: "consume", reason: "the request's close was already applied" };
  const request = await history.recordByHash(trx, held.recordHash);
  const requestRead = request === undefined ? undefined : readRecord(request.bytes);
  const requestContent = requestRead?.ok === true ? readContent(requestRead.record.content) : undefined;
  if (requestContent?.ok !== true || requestContent.collective?.op !== "all_gather") {
    return { kind: "consume", reason: "a close whose request record cannot be read" };
  }
  const schema = requestContent.collective.requestedSchema;
  const outcomes: MemberOutcome[] = [];
  for (const { member, answer } of part.answers) {
    outcomes.push({
      member: agentAddress(member),
      outcome:
        answer === null
          ? { kind: "no-answer" }
          : await outcomeOfRecord(trx, history, { answerHash: answer, member, id: part.id, conv: record.conv, schema }),
    });
  }
  await recordResult(trx, part.id, hash);
  const [first, ...rest] = outcomes;
  return {
    kind: "result",
    item: {
      kind: "collectiveResult",
      op: "all_gather",
      id: part.id,
      to: record.conv,
      question: questionOf(requestContent.message),
      outcomes: [first!, ...rest],
    },
  };
}

async function outcomeOfRecord(
  trx: Trx,
  history: History,
  input: { answerHash: string; member: string; id: string; conv: string; schema: RequestedSchema },
): Promise<MemberOutcome["outcome"]> {
  const invalid = { kind: "invalid" as const, reason: "the close names a record that is not this member's answer" };
  const stored = await history.recordByHash(trx, input.answerHash);
  if (stored === undefined || stored.conv !== input.conv || stored.author !== input.member) return invalid;
  const read = readRecord(stored.bytes);
  const content = read.ok ? readContent(read.record.content) : undefined;
  if (content?.ok !== true || content.collective?.op !== "answer" || content.collective.id !== input.id) return invalid;
  return outcomeOfAnswer(input.schema, content.collective.response);
}

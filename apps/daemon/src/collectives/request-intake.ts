/**
 * What a member does with a collective request record (seed 003 "Inbound items"): a gather request
 * in the direct conversation with its requester, or an all_gather request in a group, before its
 * deadline, becomes a collectiveRequest item. Everything else is consumed: the wrong kind of
 * conversation, past the deadline (an all_gather up to an hour late is still held for its close),
 * a deadline more than 30 days and an hour away, an id that does not derive from its sender and
 * nonce, or an id already held from another post.
 */
import {
  agentAddress,
  collectiveIdOf,
  decodeBase64url,
  type InboundItem,
  type MessageContent,
  type RecordFields,
  type RequestPart,
} from "@social-harness/protocol";
import type { HeldRequest } from "./collectives.store.js";

export const HOUR_MS = 60 * 60 * 1000;
export const MAX_DEADLINE_MS = 2_592_000 * 1000;

export type Intake =
  | { readonly kind: "deliver"; readonly item: Extract<InboundItem, { kind: "collectiveRequest" }> }
  | { readonly kind: "hold-for-close"; readonly reason: string }
  | { readonly kind: "consume"; readonly reason: string };

export function questionOf(message: MessageContent): string {
  return message
    .filter((p) => p.type === "text")
    .map((p) => (p as { text: string }).text)
    .join("\n");
}

export function takeRequest(input: {
  record: RecordFields;
  hash: string;
  part: RequestPart;
  message: MessageContent;
  held: HeldRequest | undefined;
  now: number;
}): Intake {
  const { record, hash, part, held, now } = input;
  const direct = record.conv.startsWith("direct:");
  if (part.op === "gather" && !direct)
    return { kind: "consume", reason: "a gather request outside a direct conversation" };
  if (part.op === "all_gather" && direct)
    return { kind: "consume", reason: "an all_gather request outside a group conversation" };
  const nonce = decodeBase64url(part.nonce);
  if (nonce?.length !== 32 || collectiveIdOf(record.author, nonce) !== part.id) {
    return { kind: "consume", reason: "the collective id does not derive from its sender and nonce" };
  }
  if (held !== undefined && held.recordHash !== hash)
    return { kind: "consume", reason: "the collective id is held from another post" };
  if (part.deadlineAt > now + MAX_DEADLINE_MS + HOUR_MS)
    return { kind: "consume", reason: "the deadline is more than 30 days and an hour away" };
  if (now > part.deadlineAt) {
    if (part.op === "all_gather" && now <= part.deadlineAt + HOUR_MS) {
      return { kind: "hold-for-close", reason: "past its deadline; held for its close" };
    }
    return { kind: "consume", reason: "past its deadline" };
  }
  return {
    kind: "deliver",
    item: {
      kind: "collectiveRequest",
      op: part.op,
      id: part.id,
      postId: record.postId,
      from: agentAddress(record.author),
      to: direct ? agentAddress(record.author) : record.conv,
      question: questionOf(input.message),
      requestedSchema: part.requestedSchema,
      deadlineAt: part.deadlineAt,
    },
  };
}

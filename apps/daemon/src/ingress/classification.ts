/**
 * What a verified record from another author becomes (seed 003 "Inbound items"): one inbound item
 * for the agent, an answer the requester's open operation counts, an all_gather close whose result
 * is derived at admission, or nothing (consumed). Records
 * whose collective part is not a multicast are classified by the collective engine, inside the
 * storing transaction, through the CollectiveClassifier port.
 */
import type {
  CheckedGuidance,
  CollectivePart,
  InboundItem,
  MessageContent,
  RecordFields,
} from "@social-harness/protocol";
import type { CloseInput } from "../collectives/close.js";
import type { Trx } from "../db/database.js";

export type Classification =
  | { readonly kind: "item"; readonly item: InboundItem }
  | { readonly kind: "answer"; readonly answer: ArrivedAnswer }
  | { readonly kind: "close"; readonly close: CloseInput }
  | { readonly kind: "consume"; readonly reason: string };

/** An answer record, consumed, that an operation this daemon started may count. */
export interface ArrivedAnswer {
  readonly id: string;
  readonly member: string;
  readonly conv: string;
  readonly hash: string;
  readonly response: Extract<CollectivePart, { op: "answer" }>["response"];
}

export interface CollectiveRecord {
  readonly record: RecordFields;
  readonly hash: string;
  readonly members: readonly string[];
  readonly part: Exclude<CollectivePart, { op: "multicast" }>;
  readonly message: MessageContent;
}

/** The collective engine's side of ingress (implemented in collectives/). */
export interface CollectiveClassifier {
  /** Inside the storing transaction: durable collective bookkeeping, then the classification. */
  classify(trx: Trx, input: CollectiveRecord): Promise<Classification>;
  /** After the commit (or its check): an answer reaches the requester's operation, if still open. */
  answerArrived(answer: ArrivedAnswer, guidance?: CheckedGuidance): void;
}

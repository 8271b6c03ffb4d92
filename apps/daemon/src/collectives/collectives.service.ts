/**
 * The collective engine: gather and all_gather (seed 003 "Operations", seed 000). It is the
 * daemon's CollectiveSender (requests and answers from send_message) and ingress's
 * CollectiveClassifier (the collective parts of stored records). A request is answerable while
 * this process holds it: admitted into the inbox since the process started (directly, or released
 * by the owner later), before its deadline, and not answered yet. All_gather results are derived
 * from certified history.
 */
import {
  checkAnswerContent,
  conversationOf,
  describeFormFailure,
  mintCollectiveId,
  type CheckedGuidance,
  type CollectiveOperation,
  type CollectiveResponse,
  type Withheld,
} from "@social-harness/protocol";
import type { Logger } from "pino";
import type { DaemonStore, Trx } from "../db/database.js";
import type { History } from "../history/history.service.js";
import type { Inbox } from "../inbox/inbox.service.js";
import type {
  ArrivedAnswer,
  Classification,
  CollectiveClassifier,
  CollectiveRecord,
} from "../ingress/classification.js";
import type { PostReceipt, Posts } from "../posts/posts.service.js";
import {
  isAmbiguousFailure,
  type CollectiveSender,
  type FailureDelivery,
  type SendResult,
} from "../posts/semantic-send.js";
import { CollectiveError, FirewallSendError, SendError } from "../posts/send-error.js";
import { localVerdictsOf } from "../firewall/local-verdict.js";
import { applyClose, deriveClose, type CloseInput, type CloseOutcome } from "./close.js";
import { findHeldRequest, holdRequest, recordResult } from "./collectives.store.js";
import { recoverCollectives } from "./recovery.js";
import { takeRequest } from "./request-intake.js";
import { Requester } from "./requester.js";
import { OperationTracker } from "./tracker.js";

export interface CollectivesDeps {
  readonly store: DaemonStore;
  readonly self: string;
  readonly posts: Posts;
  readonly inbox: Inbox;
  readonly history: History;
  readonly log: Logger;
  readonly now?: () => number;
  readonly sendWaitMs?: number;
}

function describe(error: unknown): string {
  if (error instanceof SendError || error instanceof CollectiveError) return error.message;
  return "the operation failed";
}

export class Collectives implements CollectiveSender, CollectiveClassifier {
  private readonly requester: Requester;
  private readonly tracker: OperationTracker;
  private readonly now: () => number;
  /** The newest inbox row when this process started: requests admitted before it are not answerable. */
  private epoch = Number.MAX_SAFE_INTEGER;
  /** Requests this process answered, or is answering now. */
  private readonly answered = new Set<string>();
  private readonly answering = new Set<string>();

  constructor(private readonly deps: CollectivesDeps) {
    this.now = deps.now ?? Date.now;
    this.tracker = new OperationTracker({ ...deps, now: this.now });
    this.requester = new Requester({ ...deps, now: this.now, sendWaitMs: deps.sendWaitMs ?? 20_000 }, this.tracker);
    deps.posts.onOwnPost((record, hash) => this.tracker.ownPostStored(record, hash));
  }

  /**
   * Restart recovery (seed 000): before anything is delivered, retires unread requests of the last
   * process and ends the operations it started. Requests admitted from here on are answerable.
   */
  async recover(): Promise<{ retired: number; lost: number; failed: number; completed: number }> {
    const recovered = await recoverCollectives(this.deps, this.now);
    this.epoch = await this.deps.inbox.lastId();
    return recovered;
  }

  // ── Sending ────────────────────────────────────────────────────────────────────────────────

  async request(
    to: string,
    question: string,
    operation: Extract<CollectiveOperation, { deadline: number }>,
    failureDelivery: FailureDelivery,
  ): Promise<SendResult> {
    const { id, nonce } = mintCollectiveId(this.deps.self);
    return this.settle(id, to, failureDelivery, async () => {
      const address = this.deps.posts.canonicalise(to);
      return this.requester.start({
        id,
        nonce,
        op: operation.op,
        address,
        question,
        deadline: operation.deadline,
        requestedSchema: operation.requestedSchema,
      });
    });
  }

  async answer(to: string, response: CollectiveResponse, failureDelivery: FailureDelivery): Promise<SendResult> {
    let matched: string | undefined;
    const fallback = mintCollectiveId(this.deps.self).id;
    return this.settle(
      () => matched ?? fallback,
      to,
      failureDelivery,
      async () => {
        const address = this.deps.posts.canonicalise(to);
        const conv = conversationOf(this.deps.self, address);
        const now = this.now();
        const open = (await this.deps.inbox.requestsIn(conv, this.epoch))
          .map((row) => row.item)
          .filter((r) => !this.answered.has(r.id) && !this.answering.has(r.id) && now <= r.deadlineAt);
        if (open.length === 0) throw new CollectiveError({ kind: "no-open-request" });
        if (open.length > 1)
          throw new CollectiveError({ kind: "several-open-requests", requests: open.map((r) => r.id) });
        const request = open[0]!;
        matched = request.id;
        if (response.action === "accept") {
          const check = checkAnswerContent(request.requestedSchema, response.content);
          if (!check.ok)
            throw new SendError(
              "content-invalid",
              `the answer does not fit the request's schema: ${describeFormFailure(check)}`,
            );
        }
        this.answering.add(request.id);
        let receipt: PostReceipt;
        try {
          receipt = await this.deps.posts.send(to, [{ type: "collective", op: "answer", id: request.id, response }]);
          this.answered.add(request.id);
        } catch (error) {
          // A refused answer leaves the request open; a pending one will still be delivered.
          if (isAmbiguousFailure(error)) this.answered.add(request.id);
          throw error;
        } finally {
          this.answering.delete(request.id);
        }
        return receipt.guidance === undefined ? {} : { guidance: receipt.guidance };
      },
    );
  }

  /**
   * Runs one operation. With failureDelivery "inbound", a refusal completes the call and reaches
   * the inbox as an operationFailed item; delivery-pending and outcome-unknown always fail the call,
   * and so does a firewall refusal (seed 001: FirewallSendError on the original call).
   */
  private async settle(
    id: string | (() => string),
    to: string,
    failureDelivery: FailureDelivery,
    run: () => Promise<{ guidance?: CheckedGuidance }>,
  ): Promise<SendResult> {
    const idOf = () => (typeof id === "string" ? id : id());
    try {
      const { guidance } = await run();
      return guidance === undefined ? { operationId: idOf() } : { operationId: idOf(), guidance };
    } catch (error) {
      if (failureDelivery === "result" || isAmbiguousFailure(error) || error instanceof FirewallSendError) {
        if (error instanceof CollectiveError && error.id === undefined)
          throw new CollectiveError(error.failure, idOf());
        throw error;
      }
      if (!(error instanceof SendError || error instanceof CollectiveError)) throw error;
      const parsed = this.deps.posts.tryCanonicalise(to);
      await this.deps.inbox.admitNow({
        item: { kind: "operationFailed", id: idOf(), to: parsed ?? to, error: describe(error) },
      });
      return { operationId: idOf() };
    }
  }

  // ── Receiving ──────────────────────────────────────────────────────────────────────────────

  async classify(trx: Trx, input: CollectiveRecord): Promise<Classification> {
    const { record, hash, part, message } = input;
    switch (part.op) {
      case "gather":
      case "all_gather": {
        const held = await findHeldRequest(trx, part.id);
        const intake = takeRequest({ record, hash, part, message, held, now: this.now() });
        if (intake.kind === "consume") return { kind: "consume", reason: intake.reason };
        if (held === undefined) {
          await holdRequest(
            trx,
            {
              id: part.id,
              recordHash: hash,
              conv: record.conv,
              op: part.op,
              requester: record.author,
              deadlineAt: part.deadlineAt,
            },
            this.now(),
          );
        }
        if (intake.kind === "hold-for-close") return { kind: "consume", reason: intake.reason };
        return { kind: "item", item: intake.item };
      }
      case "answer":
        return {
          kind: "answer",
          answer: { id: part.id, member: record.author, conv: record.conv, hash, response: part.response },
        };
      case "close":
        // The result follows the requester's admission, like its request did (ingress/admission).
        return { kind: "close", close: { record: { conv: record.conv, author: record.author }, hash, part } };
    }
  }

  /** Derives an all_gather result from its close and marks it applied (no check deferred it). */
  applyClose(trx: Trx, close: CloseInput): Promise<CloseOutcome> {
    return applyClose(trx, this.deps.history, close, localVerdictsOf);
  }

  /** Derives an all_gather result without writing (its turn in the firewall's queue came). */
  deriveClose(close: CloseInput): Promise<CloseOutcome> {
    return deriveClose(this.deps.store.db, this.deps.history, close, localVerdictsOf);
  }

  /** Marks a derived close applied. */
  recordResult(trx: Trx, close: CloseInput): Promise<void> {
    return recordResult(trx, close.part.id, close.hash);
  }

  answerArrived(answer: ArrivedAnswer, guidance?: CheckedGuidance): void {
    this.counted(answer, this.tracker.takeAnswer(answer, guidance === undefined ? {} : { guidance }));
  }

  /** An answer this daemon's firewall held: the requester's result shows it withheld. */
  answerWithheld(answer: ArrivedAnswer, withheld: Withheld): void {
    this.counted(answer, this.tracker.takeAnswer(answer, { withheld }));
  }

  private counted(answer: ArrivedAnswer, taken: boolean): void {
    // Answers in a group are every member's to record by hash; only the requester counts them.
    if (!taken && !answer.conv.startsWith("group:"))
      this.deps.log.info(
        { conv: answer.conv, hash: answer.hash, id: answer.id },
        "consumed an answer for no open operation of ours",
      );
  }

  stop(): void {
    this.tracker.stop();
  }
}

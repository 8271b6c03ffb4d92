/**
 * The collective engine: gather and all_gather (seed 003 "Operations", seed 000). It is the
 * daemon's CollectiveSender (requests and answers from send_message) and its CollectiveSink (the
 * collective parts of stored records). Answering contexts are volatile: a request can be answered
 * only while this process holds it; results of an all_gather are derived from certified history.
 */
import {
  agentAddress,
  checkAnswerContent,
  conversationOf,
  describeFormFailure,
  mintCollectiveId,
  readContent,
  readRecord,
  type ClosePart,
  type CollectiveOperation,
  type CollectiveResponse,
  type MemberOutcome,
  type RecordFields,
  type RequestedSchema,
} from "@social-harness/protocol";
import type { Logger } from "pino";
import type { DaemonStore, Trx } from "../db/database.js";
import type { CollectiveSink } from "../history/history.service.js";
import { findRecordByHash } from "../history/history.store.js";
import type { Inbox } from "../inbox/inbox.service.js";
import type { Projection } from "../ingress/projection.js";
import type { Posts } from "../posts/posts.service.js";
import {
  isAmbiguousFailure,
  type CollectiveSender,
  type FailureDelivery,
  type SendResult,
} from "../posts/semantic-send.js";
import { SendError } from "../posts/send-error.js";
import type { Trust } from "../trust/trust.service.js";
import { CollectiveError } from "./collective-error.js";
import { findHeldRequest, holdRequest, recordResult } from "./collectives.store.js";
import { outcomeOfAnswer } from "./outcomes.js";
import { questionOf, takeRequest } from "./request-intake.js";
import { Requester } from "./requester.js";

export interface CollectivesDeps {
  readonly store: DaemonStore;
  readonly self: string;
  readonly posts: Posts;
  readonly inbox: Inbox;
  readonly trust: Trust;
  readonly log: Logger;
  readonly now?: () => number;
  readonly sendWaitMs?: number;
}

/** What lets this process answer a request: lost on restart (seed 000). */
interface ResponseContext {
  readonly id: string;
  readonly conv: string;
  readonly schema: RequestedSchema;
  readonly deadlineAt: number;
  answering: boolean;
}

function describe(error: unknown): string {
  if (error instanceof SendError || error instanceof CollectiveError) return error.message;
  return "the operation failed";
}

export class Collectives implements CollectiveSender, CollectiveSink {
  private readonly requester: Requester;
  private readonly contexts = new Map<string, ResponseContext>();
  /** Contexts of requests stored in a transaction not yet committed, by record hash. */
  private readonly uncommitted = new Map<string, ResponseContext>();
  private readonly now: () => number;

  constructor(private readonly deps: CollectivesDeps) {
    this.now = deps.now ?? Date.now;
    this.requester = new Requester({ ...deps, now: this.now, sendWaitMs: deps.sendWaitMs ?? 20_000 });
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
      await this.requester.start({
        id,
        nonce,
        op: operation.op,
        address,
        question,
        deadline: operation.deadline,
        requestedSchema: operation.requestedSchema,
      });
      return id;
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
        const open = [...this.contexts.values()].filter((c) => c.conv === conv && !c.answering && now <= c.deadlineAt);
        if (open.length === 0) throw new CollectiveError({ kind: "no-open-request" });
        if (open.length > 1)
          throw new CollectiveError({ kind: "several-open-requests", requests: open.map((c) => c.id) });
        const context = open[0]!;
        matched = context.id;
        if (response.action === "accept") {
          const check = checkAnswerContent(context.schema, response.content);
          if (!check.ok)
            throw new SendError(
              "content-invalid",
              `the answer does not fit the request's schema: ${describeFormFailure(check)}`,
            );
        }
        context.answering = true;
        try {
          await this.deps.posts.send(to, [{ type: "collective", op: "answer", id: context.id, response }]);
        } catch (error) {
          // A refused answer leaves the request open; a pending one will still be delivered.
          if (!isAmbiguousFailure(error)) context.answering = false;
          throw error;
        }
        this.contexts.delete(context.id);
        return context.id;
      },
    );
  }

  /**
   * Runs one operation. With failureDelivery "inbound", a refusal completes the call and reaches
   * the inbox as an operationFailed item; delivery-pending and outcome-unknown always fail the call.
   */
  private async settle(
    id: string | (() => string),
    to: string,
    failureDelivery: FailureDelivery,
    run: () => Promise<string>,
  ): Promise<SendResult> {
    const idOf = () => (typeof id === "string" ? id : id());
    try {
      return { operationId: await run() };
    } catch (error) {
      if (failureDelivery === "result" || isAmbiguousFailure(error)) {
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

  async absorb(
    trx: Trx,
    input: {
      record: RecordFields;
      hash: string;
      members: readonly string[];
      projection: Extract<Projection, { kind: "collective" }>;
    },
  ): Promise<"delivered" | "held" | "consumed"> {
    const { record, hash } = input;
    const { part, message } = input.projection;
    const log = this.deps.log.child({ conv: record.conv, hash, id: part.id });
    switch (part.op) {
      case "gather":
      case "all_gather": {
        const held = await findHeldRequest(trx, part.id);
        const intake = takeRequest({ record, hash, part, message, held, now: this.now() });
        if (intake.kind === "consume") {
          log.info({ reason: intake.reason }, "consumed a collective request");
          return "consumed";
        }
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
        if (intake.kind === "hold-for-close") {
          log.info({ reason: intake.reason }, "consumed a late all_gather request");
          return "consumed";
        }
        const disposition = await this.deps.trust.admitOrHold(trx, {
          sender: record.author,
          conv: record.conv,
          recordHash: hash,
          item: intake.item,
        });
        if (disposition === "delivered") {
          this.uncommitted.set(hash, {
            id: part.id,
            conv: record.conv,
            schema: part.requestedSchema,
            deadlineAt: part.deadlineAt,
            answering: false,
          });
        }
        return disposition;
      }
      case "answer": {
        const counted = this.requester.takeAnswer({
          id: part.id,
          member: record.author,
          conv: record.conv,
          hash,
          response: part.response,
        });
        if (!counted && !record.conv.startsWith("group:")) log.info("consumed an answer for no open operation of ours");
        return "consumed";
      }
      case "close":
        return this.applyClose(trx, record, hash, part, log);
    }
  }

  /** Our own records: an all_gather request is held for its close; our close yields our result. */
  async absorbOwn(trx: Trx, input: { record: RecordFields; hash: string }): Promise<void> {
    const content = readContent(input.record.content);
    if (!content.ok || content.collective === undefined) return;
    const part = content.collective;
    if (part.op === "all_gather" && (await findHeldRequest(trx, part.id)) === undefined) {
      await holdRequest(
        trx,
        {
          id: part.id,
          recordHash: input.hash,
          conv: input.record.conv,
          op: "all_gather",
          requester: this.deps.self,
          deadlineAt: part.deadlineAt,
        },
        this.now(),
      );
    }
    if (part.op === "close") {
      await this.applyClose(trx, input.record, input.hash, part, this.deps.log.child({ id: part.id }));
      this.requester.closed(part.id);
    }
  }

  afterCommit(record: RecordFields, hash: string): void {
    const context = this.uncommitted.get(hash);
    if (context !== undefined) {
      this.uncommitted.delete(hash);
      this.contexts.set(context.id, context);
    }
    const content = readContent(record.content);
    if (record.author === this.deps.self && content.ok && content.collective?.op === "all_gather") {
      const members = record.conv
        .slice("group:".length)
        .split(",")
        .filter((m) => m !== this.deps.self);
      void this.requester.closeAbandoned(content.collective.id, this.deps.posts.canonicalise(record.conv), members);
    }
  }

  /** Derives the all_gather result from the close and the certified answers it names. */
  private async applyClose(
    trx: Trx,
    record: RecordFields,
    hash: string,
    part: ClosePart,
    log: Logger,
  ): Promise<"delivered" | "held" | "consumed"> {
    const held = await findHeldRequest(trx, part.id);
    if (held?.op !== "all_gather" || held.conv !== record.conv || held.requester !== record.author) {
      log.info("consumed a close for a request this daemon does not hold");
      return "consumed";
    }
    if (held.resultToken !== null) return "consumed";
    const request = await findRecordByHash(trx, held.recordHash);
    const requestRead = request === undefined ? undefined : readRecord(request.bytes);
    const requestContent = requestRead?.ok === true ? readContent(requestRead.record.content) : undefined;
    if (requestContent?.ok !== true || requestContent.collective?.op !== "all_gather") {
      log.warn("consumed a close whose request record cannot be read");
      return "consumed";
    }
    const schema = requestContent.collective.requestedSchema;
    const outcomes: MemberOutcome[] = [];
    for (const { member, answer } of part.answers) {
      outcomes.push({
        member: agentAddress(member),
        outcome:
          answer === null
            ? { kind: "no-answer" }
            : await this.outcomeOfRecord(trx, answer, member, part.id, record.conv, schema),
      });
    }
    const [first, ...rest] = outcomes;
    const item = {
      kind: "collectiveResult" as const,
      op: "all_gather" as const,
      id: part.id,
      to: record.conv,
      question: questionOf(requestContent.message),
      outcomes: [first!, ...rest] as [MemberOutcome, ...MemberOutcome[]],
    };
    await recordResult(trx, part.id, hash);
    // The result follows the requester's admission, like its request did; our own close is ours.
    if (record.author === this.deps.self) {
      await this.deps.inbox.admit(trx, { item, conv: record.conv, recordHash: hash });
      return "delivered";
    }
    return this.deps.trust.admitOrHold(trx, { sender: record.author, conv: record.conv, recordHash: hash, item });
  }

  private async outcomeOfRecord(
    trx: Trx,
    answerHash: string,
    member: string,
    id: string,
    conv: string,
    schema: RequestedSchema,
  ) {
    const invalid = { kind: "invalid" as const, reason: "the close names a record that is not this member's answer" };
    const stored = await findRecordByHash(trx, answerHash);
    if (stored === undefined || stored.conv !== conv || stored.author !== member) return invalid;
    const read = readRecord(stored.bytes);
    const content = read.ok ? readContent(read.record.content) : undefined;
    if (content?.ok !== true || content.collective?.op !== "answer" || content.collective.id !== id) return invalid;
    return outcomeOfAnswer(schema, content.collective.response);
  }

  stop(): void {
    this.requester.stop();
  }
}

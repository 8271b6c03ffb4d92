/**
 * The requester's side of gather and all_gather (seed 003 "Operations"). A gather posts one request
 * per member in that member's direct conversation; an all_gather posts one request to the group.
 * The send waits for the request posts at most 20 s (never past the deadline). Answers count until
 * the deadline, or until every member has settled; then a gather's result goes to the requester's
 * inbox, and an all_gather is closed with the record hash of each counted answer. An operation ends
 * in exactly one refusal or one result. Operation state is volatile; a row records that it started.
 */
import {
  agentAddress,
  checkContentSize,
  checkRequestedSchema,
  describeFormFailure,
  directConversation,
  MAX_DEADLINE_SECONDS,
  othersOf,
  readContent,
  type AnswerPart,
  type CanonicalAddress,
  type ClosePart,
  type CollectiveMemberOutcome,
  type Content,
  type RecordFields,
  type RequestedSchema,
  type RequestPart,
  type SendErrorReason,
  type CheckedGuidance,
  type Withheld,
} from "@social-harness/protocol";
import type { Logger } from "pino";
import type { DaemonStore } from "../db/database.js";
import type { Inbox } from "../inbox/inbox.service.js";
import type { Posts } from "../posts/posts.service.js";
import { CollectiveError, FirewallSendError, SendError } from "../posts/send-error.js";
import type { History } from "../history/history.service.js";
import { localVerdictOf } from "../firewall/local-verdict.js";
import { applyClose } from "./close.js";
import { findHeldRequest, holdRequest, insertOperation, settleOperation } from "./collectives.store.js";
import { outcomeOfAnswer, setLongTimeout } from "./outcomes.js";

export interface RequesterDeps {
  readonly store: DaemonStore;
  readonly self: string;
  readonly posts: Posts;
  readonly inbox: Inbox;
  readonly history: History;
  readonly log: Logger;
  readonly now: () => number;
  /** How long a send waits for its request posts (seed 003: 20 s). */
  readonly sendWaitMs: number;
}

export interface StartInput {
  readonly id: string;
  readonly nonce: string;
  readonly op: "gather" | "all_gather";
  readonly address: CanonicalAddress;
  readonly question: string;
  readonly deadline: number;
  readonly requestedSchema: RequestedSchema;
}

interface Operation {
  readonly id: string;
  readonly op: "gather" | "all_gather";
  readonly address: CanonicalAddress;
  readonly question: string;
  readonly schema: RequestedSchema;
  readonly deadlineAt: number;
  readonly members: readonly string[];
  /** Members whose request post was refused: the bare reason and its detail. */
  readonly refused: Map<string, { reason: SendErrorReason; detail?: string }>;
  /** The first answer of each member: its outcome and the record that carried it. */
  readonly answers: Map<string, { outcome: CollectiveMemberOutcome; hash: string; guidance?: CheckedGuidance }>;
  timer: { clear(): void } | undefined;
  /** True while the send waits for its request posts; only the deadline completes it then. */
  starting: boolean;
  settled: boolean;
}

/** A refusal that means the post was not and will not be made. */
function definiteRefusal(error: unknown): { reason: SendErrorReason; detail?: string } | undefined {
  if (!(error instanceof SendError)) return undefined;
  if (error.reason === "delivery-pending" || error.reason === "outcome-unknown") return undefined;
  return error.detail === undefined ? { reason: error.reason } : { reason: error.reason, detail: error.detail };
}

export class Requester {
  private readonly operations = new Map<string, Operation>();
  /** all_gathers whose send failed while their request post was still pending. */
  private readonly failed = new Set<string>();
  /** Our own stored posts, followed one at a time in the order they were stored. */
  private ownPosts: Promise<void> = Promise.resolve();

  constructor(private readonly deps: RequesterDeps) {}

  /** Checks everything that is refused before anything is sent. */
  validate(input: Pick<StartInput, "op" | "address" | "question" | "deadline" | "requestedSchema">): void {
    const schema = checkRequestedSchema(input.requestedSchema);
    if (!schema.ok) throw new SendError("content-invalid", describeFormFailure(schema));
    if (!Number.isInteger(input.deadline) || input.deadline < 1 || input.deadline > MAX_DEADLINE_SECONDS) {
      throw new SendError("content-invalid", `deadline must be whole seconds from 1 to ${MAX_DEADLINE_SECONDS}`);
    }
    if (input.question.trim() === "") throw new SendError("content-invalid", "the question is empty");
    if (input.op === "all_gather" && input.address.kind !== "group") {
      throw new SendError("membership-invalid", "an all_gather asks a group with two or more other agents");
    }
  }

  /** Starts the operation; resolves with the firewall's advice when its check left a judgment uncertain. */
  async start(input: StartInput): Promise<{ guidance?: CheckedGuidance }> {
    const { id, op, address } = input;
    this.validate(input);
    await this.deps.posts.checkLink();
    const members = othersOf(this.deps.self, address);
    const { unknown } = await this.deps.posts.resolve(members);
    if (unknown.length > 0) {
      throw new CollectiveError(
        {
          kind: "members-unreachable",
          members: unknown.map((u) => ({ member: agentAddress(u.name), reason: u.reason })),
        },
        id,
      );
    }
    const deadlineAt = this.deps.now() + input.deadline * 1000;
    const content: Content = [
      { type: "text", text: input.question },
      { type: "collective", op, id, nonce: input.nonce, deadlineAt, requestedSchema: input.requestedSchema },
    ];
    const size = checkContentSize(content);
    if (!size.ok) throw new SendError("content-invalid", size.reason);
    try {
      await insertOperation(
        this.deps.store.db,
        { id, op, address: address.address, question: input.question, deadlineAt },
        this.deps.now(),
      );
    } catch (cause) {
      throw new SendError("persistence-failed", "the operation could not be recorded; nothing was sent", { cause });
    }
    const operation: Operation = {
      id,
      op,
      address,
      question: input.question,
      schema: input.requestedSchema,
      deadlineAt,
      members,
      refused: new Map(),
      answers: new Map(),
      timer: undefined,
      starting: true,
      settled: false,
    };
    this.operations.set(id, operation);
    operation.timer = setLongTimeout(() => void this.complete(operation), deadlineAt - this.deps.now());
    const waitUntil = Math.min(this.deps.now() + this.deps.sendWaitMs, deadlineAt);
    let guidance: CheckedGuidance | undefined;
    try {
      guidance =
        op === "gather"
          ? await this.fanOut(operation, content, waitUntil)
          : await this.postToGroup(operation, content, waitUntil);
    } catch (error) {
      await this.fail(operation);
      throw error;
    }
    operation.starting = false;
    this.settleIfComplete(operation);
    return guidance === undefined ? {} : { guidance };
  }

  private async fanOut(
    operation: Operation,
    content: Content,
    waitUntil: number,
  ): Promise<CheckedGuidance | undefined> {
    // Checked once and bound at once: a refusal here means no member was asked.
    const { deliveries, guidance } = await this.deps.posts.postToEach(operation.address, content);
    const posts = deliveries.map(({ member, delivery }) =>
      delivery.then(
        () => undefined,
        (error: unknown) => {
          const refusal = definiteRefusal(error);
          if (refusal === undefined) {
            this.deps.log.warn({ err: error, id: operation.id, member }, "a gather request is still certifying");
            return;
          }
          operation.refused.set(member, refusal);
          this.settleIfComplete(operation);
        },
      ),
    );
    await Promise.race([Promise.all(posts), sleepUntil(waitUntil, this.deps.now)]);
    // A deadline that completed the operation during the wait stands as its result.
    if (!operation.settled && operation.refused.size === operation.members.length) {
      throw new CollectiveError(
        {
          kind: "members-unreachable",
          members: operation.members.map((m) => ({ member: agentAddress(m), ...operation.refused.get(m)! })),
        },
        operation.id,
      );
    }
    return guidance;
  }

  private async postToGroup(
    operation: Operation,
    content: Content,
    waitUntil: number,
  ): Promise<CheckedGuidance | undefined> {
    let guidance: CheckedGuidance | undefined;
    const post = this.deps.posts
      .postChecked(operation.address, content)
      .then(async (checked) => {
        guidance = checked.guidance;
        await checked.delivery;
      })
      .then(
        () => ({ outcome: "certified" as const }),
        (error: unknown) => ({ outcome: "failed" as const, error }),
      );
    const result = await Promise.race([
      post,
      sleepUntil(waitUntil, this.deps.now).then(() => ({ outcome: "waited" as const })),
    ]);
    if (result.outcome === "certified") return guidance;
    // The local firewall refused the request: nothing was sent, and the send says why.
    if (result.outcome === "failed" && result.error instanceof FirewallSendError) throw result.error;
    // If the deadline completed the operation first, its result stands (seed 003 "all_gather").
    if (operation.settled && this.deps.now() >= operation.deadlineAt) return guidance;
    // A post still pending (or ambiguous) counts as not certified in time, with what happened.
    const refusal = (result.outcome === "failed" ? definiteRefusal(result.error) : undefined) ?? {
      reason: "certification-unavailable" as const,
      detail:
        result.outcome === "failed" && result.error instanceof SendError && result.error.detail !== undefined
          ? result.error.detail
          : "the group's request was not certified within the send wait",
    };
    throw new CollectiveError(
      {
        kind: "members-unreachable",
        members: operation.members.map((m) => ({ member: agentAddress(m), ...refusal })),
      },
      operation.id,
    );
  }

  /** Records a member's first answer to an open operation; false when the answer is not counted. */
  takeAnswer(
    input: { id: string; member: string; conv: string; hash: string; response: AnswerPart["response"] },
    check: { guidance?: CheckedGuidance; withheld?: Withheld } = {},
  ): boolean {
    const operation = this.operations.get(input.id);
    if (operation === undefined || operation.settled || !operation.members.includes(input.member)) return false;
    const expectedConv =
      operation.op === "gather" ? directConversation(this.deps.self, input.member) : operation.address.address;
    if (input.conv !== expectedConv || operation.answers.has(input.member)) return false;
    if (this.deps.now() > operation.deadlineAt) return false;
    // An answer this daemon's firewall held counts as the member's outcome, withheld.
    operation.answers.set(input.member, {
      outcome: check.withheld ?? outcomeOfAnswer(operation.schema, input.response),
      hash: input.hash,
      ...(check.guidance === undefined ? {} : { guidance: check.guidance }),
    });
    this.settleIfComplete(operation);
    return true;
  }

  /** An operation completes early once every member has answered or was refused. */
  private settleIfComplete(operation: Operation): void {
    if (operation.settled || operation.starting) return;
    if (operation.members.every((m) => operation.answers.has(m) || operation.refused.has(m)))
      void this.complete(operation);
  }

  private async complete(operation: Operation): Promise<void> {
    if (operation.settled) return;
    operation.settled = true;
    operation.timer?.clear();
    try {
      if (operation.op === "gather") {
        const outcomes = operation.members.map((m) => ({
          member: agentAddress(m),
          outcome: operation.answers.get(m)?.outcome ?? ({ kind: "no-answer" } as const),
        }));
        const [first, ...rest] = outcomes;
        const answers = operation.members.flatMap((m) => {
          const guidance = operation.answers.get(m)?.guidance;
          return guidance === undefined ? [] : [{ ...guidance, member: agentAddress(m) }];
        });
        await this.deps.store.db.transaction().execute(async (trx) => {
          await this.deps.inbox.admit(trx, {
            item: {
              kind: "collectiveResult",
              op: "gather",
              id: operation.id,
              to: operation.address.address,
              question: operation.question,
              outcomes: [first!, ...rest],
            },
            ...(answers.length === 0 ? {} : { guidance: { answers } }),
          });
          await settleOperation(trx, operation.id, "done", this.deps.now());
        });
        this.deps.inbox.changed();
        this.operations.delete(operation.id);
        return;
      }
      // The all_gather result comes from the certified close, at every member and here alike.
      const close: Content = [
        {
          type: "collective",
          op: "close",
          id: operation.id,
          answers: [...operation.members]
            .sort()
            .map((member) => ({ member, answer: operation.answers.get(member)?.hash ?? null })),
        },
      ];
      await this.deps.posts.post(operation.address, close);
    } catch (error) {
      this.deps.log.error({ err: error, id: operation.id }, "completing a collective operation failed");
    }
  }

  /**
   * One of our own posts was stored. Our all_gather request is held for its close (and closed at
   * once, with no answers, if its send already failed while the post was pending); our close yields
   * the requester's result, derived from certified history like every member's.
   */
  ownPostStored(record: RecordFields, hash: string): void {
    const content = readContent(record.content);
    const part = content.ok ? content.collective : undefined;
    if (part === undefined) return;
    const follow =
      part.op === "all_gather"
        ? () => this.requestStored(record, hash, part)
        : part.op === "close"
          ? () => this.closeStored(record, hash, part)
          : undefined;
    if (follow === undefined) return;
    this.ownPosts = this.ownPosts
      .then(follow)
      .catch((error: unknown) => this.deps.log.error({ err: error, hash }, "following our own post failed"));
  }

  private async requestStored(record: RecordFields, hash: string, part: RequestPart): Promise<void> {
    await this.deps.store.db.transaction().execute(async (trx) => {
      if ((await findHeldRequest(trx, part.id)) !== undefined) return;
      await holdRequest(
        trx,
        {
          id: part.id,
          recordHash: hash,
          conv: record.conv,
          op: "all_gather",
          requester: this.deps.self,
          deadlineAt: part.deadlineAt,
        },
        this.deps.now(),
      );
    });
    if (!this.failed.delete(part.id)) return;
    const members = othersOf(this.deps.self, this.deps.posts.canonicalise(record.conv));
    const close: Content = [
      {
        type: "collective",
        op: "close",
        id: part.id,
        answers: [...members].sort().map((member) => ({ member, answer: null })),
      },
    ];
    await this.deps.posts
      .post(this.deps.posts.canonicalise(record.conv), close)
      .catch((error: unknown) =>
        this.deps.log.warn({ err: error, id: part.id }, "closing an abandoned all_gather failed"),
      );
  }

  private async closeStored(record: RecordFields, hash: string, part: ClosePart): Promise<void> {
    // Only an operation this process started and completed ends here; a restart already ended
    // the others (recovery), and an abandoned one ended when its send failed.
    const operation = this.operations.get(part.id);
    if (operation === undefined) return;
    this.operations.delete(part.id);
    const admitted = await this.deps.store.db.transaction().execute(async (trx) => {
      const outcome = await applyClose(trx, this.deps.history, { record, hash, part }, localVerdictOf);
      if (outcome.kind === "result")
        await this.deps.inbox.admit(trx, {
          item: outcome.item,
          ...(outcome.guidance === undefined ? {} : { guidance: outcome.guidance }),
          conv: record.conv,
          recordHash: hash,
        });
      await settleOperation(trx, part.id, "done", this.deps.now());
      return outcome.kind === "result";
    });
    if (admitted) this.deps.inbox.changed();
  }

  private async fail(operation: Operation): Promise<void> {
    if (operation.settled) return;
    operation.settled = true;
    operation.timer?.clear();
    this.operations.delete(operation.id);
    if (operation.op === "all_gather") this.failed.add(operation.id);
    await settleOperation(this.deps.store.db, operation.id, "failed", this.deps.now()).catch((error: unknown) =>
      this.deps.log.error({ err: error, id: operation.id }, "could not record a failed operation"),
    );
  }

  stop(): void {
    for (const operation of this.operations.values()) operation.timer?.clear();
  }
}

function sleepUntil(at: number, now: () => number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, at - now())).unref());
}

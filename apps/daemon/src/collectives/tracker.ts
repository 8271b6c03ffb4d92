/**
 * Tracking the operations this daemon started to their one ending (seed 003 "Operations"): each
 * member's first answer counts until the deadline or until every member has settled; then a
 * gather's result goes to the requester's inbox, and an all_gather is closed with the record hash
 * of each counted answer, whose certified close yields the result. Operation state is volatile.
 */
import {
  agentAddress,
  directConversation,
  othersOf,
  readContent,
  type AnswerPart,
  type CanonicalAddress,
  type CheckedGuidance,
  type ClosePart,
  type CollectiveMemberOutcome,
  type Content,
  type RecordFields,
  type RequestedSchema,
  type RequestPart,
  type SendErrorReason,
  type Withheld,
} from "@social-harness/protocol";
import type { Logger } from "pino";
import type { DaemonStore } from "../db/database.js";
import type { History } from "../history/history.service.js";
import type { Inbox } from "../inbox/inbox.service.js";
import type { Posts } from "../posts/posts.service.js";
import { localVerdictsOf } from "../firewall/local-verdict.js";
import { applyClose } from "./close.js";
import { findHeldRequest, holdRequest, settleOperation } from "./collectives.store.js";
import { outcomeOfAnswer, setLongTimeout } from "./outcomes.js";

export interface TrackerDeps {
  readonly store: DaemonStore;
  readonly self: string;
  readonly posts: Posts;
  readonly inbox: Inbox;
  readonly history: History;
  readonly log: Logger;
  readonly now: () => number;
}

export interface Operation {
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

export class OperationTracker {
  private readonly operations = new Map<string, Operation>();
  /** all_gathers whose send failed while their request post was still pending. */
  private readonly failed = new Set<string>();
  /** Our own stored posts, followed one at a time in the order they were stored. */
  private ownPosts: Promise<void> = Promise.resolve();

  constructor(private readonly deps: TrackerDeps) {}

  /** Tracks a started operation; its deadline completes it. */
  track(operation: Operation): void {
    this.operations.set(operation.id, operation);
    operation.timer = setLongTimeout(() => void this.complete(operation), operation.deadlineAt - this.deps.now());
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
  settleIfComplete(operation: Operation): void {
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
      const outcome = await applyClose(trx, this.deps.history, { record, hash, part }, localVerdictsOf);
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

  async fail(operation: Operation): Promise<void> {
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

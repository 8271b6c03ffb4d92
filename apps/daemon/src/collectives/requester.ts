/**
 * Starting a gather or an all_gather (seed 003 "Operations"): everything refused before anything
 * is sent, then one request post per member in its direct conversation (gather) or one to the group
 * (all_gather). The send waits for the request posts at most 20 s (never past the deadline); what
 * follows is tracked to its one ending by tracker.ts. A row records that the operation started.
 */
import {
  agentAddress,
  checkContentSize,
  checkRequestedSchema,
  describeFormFailure,
  MAX_DEADLINE_SECONDS,
  othersOf,
  type CanonicalAddress,
  type CheckedGuidance,
  type Content,
  type RequestedSchema,
  type SendErrorReason,
} from "@social-harness/protocol";
import type { Logger } from "pino";
import type { DaemonStore } from "../db/database.js";
import type { History } from "../history/history.service.js";
import type { Inbox } from "../inbox/inbox.service.js";
import type { Posts } from "../posts/posts.service.js";
import { CollectiveError, FirewallSendError, SendError } from "../posts/send-error.js";
import { insertOperation } from "./collectives.store.js";
import type { Operation, OperationTracker } from "./tracker.js";

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

/** A refusal that means the post was not and will not be made. */
function definiteRefusal(error: unknown): { reason: SendErrorReason; detail?: string } | undefined {
  if (!(error instanceof SendError)) return undefined;
  if (error.reason === "delivery-pending" || error.reason === "outcome-unknown") return undefined;
  return error.detail === undefined ? { reason: error.reason } : { reason: error.reason, detail: error.detail };
}

export class Requester {
  constructor(
    private readonly deps: RequesterDeps,
    private readonly tracker: OperationTracker,
  ) {}

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
    this.tracker.track(operation);
    const waitUntil = Math.min(this.deps.now() + this.deps.sendWaitMs, deadlineAt);
    let guidance: CheckedGuidance | undefined;
    try {
      guidance =
        op === "gather"
          ? await this.fanOut(operation, content, waitUntil)
          : await this.postToGroup(operation, content, waitUntil);
    } catch (error) {
      await this.tracker.fail(operation);
      throw error;
    }
    operation.starting = false;
    this.tracker.settleIfComplete(operation);
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
          this.tracker.settleIfComplete(operation);
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
}

function sleepUntil(at: number, now: () => number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, at - now())).unref());
}

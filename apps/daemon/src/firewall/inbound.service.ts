/**
 * The firewall on the way in (seed 000 "MCP Events and inbox"): ingress queues each classified
 * subject privately and durably, in the transaction that stores its record; bounded workers settle
 * the checks, one in flight per conversation and in conversation order, outside the router callback,
 * the delivery lock and every SQLite transaction. An allow inserts the item (for an all_gather
 * result, its local projection) with its guidance in one transaction; a hold keeps the audit and a
 * hold for the owner, and the conversation's frontier moves on. Queued checks resume after a crash.
 */
import { agentAddress, type InboundItem, type LocalGuidance, type Withheld } from "@social-harness/protocol";
import type { Logger } from "pino";
import { deriveClose, type CloseInput } from "../collectives/close.js";
import { recordResult } from "../collectives/collectives.store.js";
import type { DaemonStore } from "../db/database.js";
import type { History } from "../history/history.service.js";
import type { Holds } from "../holds/holds.service.js";
import type { Inbox } from "../inbox/inbox.service.js";
import type { ArrivedAnswer } from "../ingress/classification.js";
import type { Trust } from "../trust/trust.service.js";
import { insertCheck } from "./checks.store.js";
import type { Assessment } from "./engine.js";
import { localVerdictOf, withheldReason } from "./local-verdict.js";
import type { FirewallPolicies } from "./policy.service.js";
import { dequeue, enqueue, frontier, type QueueKind, type QueueRow } from "./queue.store.js";
import { answerText, conversationAddress, recipientsOf, subjectOfItem, type Subject } from "./subjects.js";

/** Where answers go once checked: the requester's open operation, if any. */
export interface AnswerSink {
  answerArrived(answer: ArrivedAnswer, guidance?: Assessment["guidance"]): void;
  answerWithheld(answer: ArrivedAnswer, withheld: Withheld): void;
}

export type QueuePayload =
  | { readonly kind: "item"; readonly item: InboundItem }
  | { readonly kind: "answer"; readonly answer: ArrivedAnswer }
  | { readonly kind: "close"; readonly close: CloseInput };

export interface InboundFirewallDeps {
  readonly store: DaemonStore;
  readonly self: string;
  readonly policies: FirewallPolicies;
  readonly inbox: Inbox;
  readonly holds: Holds;
  readonly history: History;
  readonly trust: Trust;
  readonly answers: AnswerSink;
  readonly log: Logger;
  /** Checks in flight at once (default 4). */
  readonly workers?: number;
  readonly now?: () => number;
}

export class InboundFirewall {
  private readonly busy = new Set<string>();
  private readonly workers: number;
  private readonly now: () => number;
  private pumping = false;
  private again = false;
  private stopped = false;
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly deps: InboundFirewallDeps) {
    this.workers = deps.workers ?? 4;
    this.now = deps.now ?? Date.now;
  }

  /** True when the current policy checks inbound subjects. */
  active(): boolean {
    return this.deps.policies.current.active("inbound");
  }

  /** Queues a subject inside the transaction that stores its record; call wake() after the commit. */
  async enqueue(
    trx: Parameters<typeof enqueue>[0],
    entry: { conv: string; recordHash: string; sender: string; payload: QueuePayload },
  ): Promise<void> {
    await enqueue(trx, {
      conv: entry.conv,
      recordHash: entry.recordHash,
      sender: entry.sender,
      kind: entry.payload.kind satisfies QueueKind,
      payload: JSON.stringify(entry.payload),
      createdAt: this.now(),
    });
  }

  /** Starts the workers on whatever is queued (after a restart, the checks a crash interrupted). */
  start(): void {
    this.wake();
  }

  wake(): void {
    if (this.stopped) return;
    void this.pump().catch((error: unknown) => this.deps.log.error({ err: error }, "the firewall queue failed"));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.running]);
  }

  private async pump(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        const free = this.workers - this.busy.size;
        if (free <= 0) break;
        for (const row of await frontier(this.deps.store.db, [...this.busy], free)) {
          if (this.busy.has(row.conv)) continue;
          this.busy.add(row.conv);
          const run = this.settle(row)
            .catch((error: unknown) =>
              this.deps.log.error(
                { err: error, conv: row.conv, hash: row.recordHash },
                "a firewall check failed; it stays queued",
              ),
            )
            .finally(() => {
              this.busy.delete(row.conv);
              this.running.delete(run);
              this.wake();
            });
          this.running.add(run);
        }
      } while (this.again && !this.stopped);
    } finally {
      this.pumping = false;
    }
  }

  private subjectOf(row: QueueRow, payload: Exclude<QueuePayload, { kind: "close" }>): Subject {
    if (payload.kind === "item")
      return subjectOfItem(this.deps.self, { conv: row.conv, sender: row.sender, item: payload.item });
    return {
      id: payload.answer.id,
      kind: "answer",
      sender: agentAddress(row.sender),
      recipients: recipientsOf(row.conv, row.sender),
      conversation: conversationAddress(this.deps.self, row.conv),
      text: answerText(payload.answer.response),
    };
  }

  /** Checks one queued subject and settles it: admitted, held, or handed to the requester. */
  private async settle(row: QueueRow): Promise<void> {
    const { store, history, holds, inbox } = this.deps;
    const payload = JSON.parse(row.payload) as QueuePayload;
    this.deps.policies.clock.last = this.now();

    // An all_gather result is projected when its turn comes, after its answers' checks settled.
    let item: InboundItem | undefined;
    let localGuidance: LocalGuidance | undefined;
    if (payload.kind === "close") {
      const outcome = await deriveClose(store.db, history, payload.close, localVerdictOf);
      if (outcome.kind === "consume") {
        await store.db.transaction().execute(async (trx) => {
          await dequeue(trx, row.id);
          await history.setDisposition(trx, row.recordHash, "consumed");
        });
        this.deps.log.info({ hash: row.recordHash, reason: outcome.reason }, "consumed a record");
        return;
      }
      item = outcome.item;
      localGuidance = outcome.guidance;
      if (!(await this.deps.trust.admits(store.db, row.sender))) {
        await store.db.transaction().execute(async (trx) => {
          await dequeue(trx, row.id);
          await recordResult(trx, payload.close.part.id, row.recordHash);
          await holds.hold(trx, {
            recordHash: row.recordHash,
            sender: row.sender,
            conv: row.conv,
            item: outcome.item,
            reason: this.deps.trust.reasonFor(row.sender),
            source: "trust",
          });
          await history.setDisposition(trx, row.recordHash, "held");
        });
        return;
      }
    } else if (payload.kind === "item") {
      item = payload.item;
    }

    const subject =
      payload.kind === "close"
        ? subjectOfItem(this.deps.self, { conv: row.conv, sender: row.sender, item: item! })
        : this.subjectOf(row, payload);
    const compiled = this.deps.policies.current;
    const assessment = compiled.active("inbound") ? await compiled.assess("inbound", subject) : undefined;
    const held = assessment !== undefined && assessment.mode === "enforce" && assessment.decision !== "allow";
    const guidance = held ? undefined : assessment?.guidance;

    let admitted = false;
    await store.db.transaction().execute(async (trx) => {
      if (!(await dequeue(trx, row.id))) return;
      if (assessment !== undefined) {
        await insertCheck(trx, {
          checkId: assessment.checkId,
          direction: "inbound",
          conv: subject.conversation,
          recordHash: row.recordHash,
          postId: null,
          subjects: [subject],
          revision: assessment.revision,
          mode: assessment.mode,
          decision: assessment.decision,
          outcome: held ? "held" : "admitted",
          middlewares: assessment.verdicts,
          guidance: guidance ?? null,
          stale: 0,
          latencyUs: assessment.latencyUs,
          createdAt: this.now(),
        });
      }
      if (payload.kind === "close") await recordResult(trx, payload.close.part.id, row.recordHash);
      if (payload.kind === "answer") {
        await history.setDisposition(trx, row.recordHash, "consumed");
        return;
      }
      if (held) {
        await holds.hold(trx, {
          recordHash: row.recordHash,
          sender: row.sender,
          conv: row.conv,
          item: item!,
          reason: assessment.feedback === "" ? "the firewall held it" : assessment.feedback,
          source: "firewall",
          checkId: assessment.checkId,
          ...(assessment.guidance === undefined ? {} : { guidance: assessment.guidance }),
        });
        await history.setDisposition(trx, row.recordHash, "held");
        return;
      }
      const itemGuidance: LocalGuidance | undefined = payload.kind === "close" ? localGuidance : guidance;
      await inbox.admit(trx, {
        item: item!,
        ...(itemGuidance === undefined ? {} : { guidance: itemGuidance }),
        conv: row.conv,
        recordHash: row.recordHash,
      });
      await history.setDisposition(trx, row.recordHash, "delivered");
      admitted = true;
    });
    if (admitted) inbox.changed();
    if (payload.kind === "answer") {
      if (held)
        this.deps.answers.answerWithheld(payload.answer, {
          kind: "withheld",
          checkId: assessment.checkId,
          reason: withheldReason({ middlewares: assessment.verdicts }),
        });
      else this.deps.answers.answerArrived(payload.answer, guidance);
    }
  }
}

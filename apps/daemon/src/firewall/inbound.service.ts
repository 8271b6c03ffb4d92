/**
 * The firewall on the way in (seed 000 "MCP Events and inbox"): ingress queues each classified
 * subject privately and durably, in the transaction that stores its record; bounded workers settle
 * the checks, one in flight per conversation and in conversation order, outside the router callback,
 * the delivery lock and every SQLite transaction. Each check is settled by admission
 * (ingress/admission.ts) in one transaction with its audit record; a hold lets the conversation's
 * frontier move on. Queued checks resume after a crash.
 */
import { agentAddress, continueSpan } from "@social-harness/protocol";
import type { Logger } from "pino";
import type { DaemonStore } from "../db/database.js";
import type { Admission, FirewallQueue, FirewallSettling, QueuePayload } from "../ingress/admission.js";
import { insertCheck } from "./checks.store.js";
import type { FirewallPolicies } from "./policy.service.js";
import { dequeue, enqueue, frontier, payloadOf, type QueueKind, type QueueRow } from "./queue.store.js";
import { answerText, conversationAddress, recipientsOf, subjectOfItem, type Subject } from "./subjects.js";

export interface InboundFirewallDeps {
  readonly store: DaemonStore;
  readonly self: string;
  readonly policies: FirewallPolicies;
  /** Settles each checked subject; resolved late, since admission queues through this firewall. */
  readonly admission: () => Pick<Admission, "settle">;
  readonly log: Logger;
  /** Checks in flight at once (default 4). */
  readonly workers?: number;
  readonly now?: () => number;
}

export class InboundFirewall implements FirewallQueue {
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

  private subjectOf(row: QueueRow, payload: Parameters<FirewallSettling["assess"]>[0]): Subject {
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

  /** Checks one queued subject and settles it through admission (ingress/admission.ts). */
  private async settle(row: QueueRow): Promise<void> {
    let subject: Subject | undefined;
    const origin = { conv: row.conv, recordHash: row.recordHash, sender: row.sender };
    // A child of the record's ingress span, when tracing; what the check admits hangs under it.
    const span = continueSpan("firewall.check", row.recordHash);
    await this.deps.admission().settle(origin, payloadOf(row), {
      assess: (target) => {
        subject = this.subjectOf(row, target);
        const compiled = this.deps.policies.current;
        return compiled.active("inbound") ? compiled.assess("inbound", subject) : Promise.resolve(undefined);
      },
      commit: async (trx, check) => {
        if (!(await dequeue(trx, row.id))) return false;
        if (check === undefined || subject === undefined) return true;
        const { assessment, held } = check;
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
          guidance: held ? null : (assessment.guidance ?? null),
          stale: 0,
          latencyUs: assessment.latencyUs,
          createdAt: this.now(),
        });
        span?.setAttributes({ "social_harness.firewall.decision": assessment.decision });
        return true;
      },
    });
    span?.end();
  }
}

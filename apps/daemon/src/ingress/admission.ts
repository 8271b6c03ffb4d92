/**
 * Admission (SPEC §7, §10): what enters the agent's inbox. One decision (admission-decision.ts) and
 * one apply step serve a record's first arrival, inside its storing transaction, and the settling of
 * its firewall check, outside it. Trusting a sender sends its held items back through admission,
 * in their original order.
 */
import type { InboundItem } from "@social-harness/protocol";
import type { CloseInput, CloseOutcome } from "../collectives/close.js";
import type { DaemonStore, Trx } from "../db/database.js";
import type { Assessment } from "../firewall/engine.js";
import type { Disposition, History } from "../history/history.service.js";
import type { Holds } from "../holds/holds.service.js";
import type { Inbox } from "../inbox/inbox.service.js";
import type { Trust } from "../trust/trust.service.js";
import { decideAdmission, type AdmissionSubject, type Decision, type FirewallFact } from "./admission-decision.js";
import type { ArrivedAnswer, CollectiveClassifier } from "./classification.js";

/** A subject waiting in the firewall's private queue for its check. */
export type QueuePayload =
  | { readonly kind: "item"; readonly item: InboundItem }
  | { readonly kind: "answer"; readonly answer: ArrivedAnswer }
  | { readonly kind: "close"; readonly close: CloseInput };

/** The firewall's private queue (firewall/inbound.service.ts), as admission uses it. */
export interface FirewallQueue {
  /** True when the current policy checks inbound subjects. */
  active(): boolean;
  /** Queues a subject inside the transaction that stores its record. */
  enqueue(trx: Trx, entry: Origin & { payload: QueuePayload }): Promise<void>;
  /** Starts the checks of what was queued, after the commit. */
  wake(): void;
}

export interface Origin {
  readonly sender: string;
  readonly conv: string;
  readonly recordHash: string;
}

/** The collective engine's side of admission (collectives/collectives.service.ts). */
export interface AdmissionCloses {
  /** Inside the storing transaction: derives the close's result and marks it applied. */
  applyClose(trx: Trx, close: CloseInput): Promise<CloseOutcome>;
  /** Outside any transaction, when the close's turn comes in the firewall's queue. */
  deriveClose(close: CloseInput): Promise<CloseOutcome>;
  /** Marks a derived close applied. */
  recordResult(trx: Trx, close: CloseInput): Promise<void>;
}

/** The firewall's part in settling one queued subject (firewall/inbound.service.ts). */
export interface FirewallSettling {
  /** The check of the subject; undefined when the policy no longer checks inbound subjects. */
  assess(
    target: { kind: "item"; item: InboundItem } | { kind: "answer"; answer: ArrivedAnswer },
  ): Promise<Assessment | undefined>;
  /** In the settling transaction: dequeues the subject (false when it was settled already) and records its check. */
  commit(trx: Trx, check: { assessment: Assessment; held: boolean } | undefined): Promise<boolean>;
}

export interface AdmissionDeps {
  readonly store: DaemonStore;
  readonly trust: Trust;
  readonly holds: Holds;
  readonly inbox: Inbox;
  readonly history: History;
  readonly firewall: FirewallQueue;
  readonly closes: AdmissionCloses;
  /** Where checked answers go: the requester's open operation, if any. */
  readonly answers: Pick<CollectiveClassifier, "answerArrived"> & {
    answerWithheld(answer: ArrivedAnswer, withheld: Extract<Decision, { kind: "withhold" }>["withheld"]): void;
  };
  /** Told when an inbound subject is settled (admitted, held or consumed): the loop guard's clock. */
  readonly arrived: (at: number) => void;
  readonly now?: () => number;
}

/** A first arrival's disposition, and the answer to hand on once the storing transaction commits. */
export interface Arrival {
  readonly disposition: Disposition;
  readonly answer?: ArrivedAnswer;
}

export class Admission {
  constructor(private readonly deps: AdmissionDeps) {}

  private firewallFact(): FirewallFact {
    return this.deps.firewall.active() ? { state: "pending" } : { state: "off" };
  }

  /** Inside the storing transaction: the subject is held, queued for its check, admitted or consumed. */
  async arrive(
    trx: Trx,
    origin: Origin,
    arrived: Exclude<AdmissionSubject, { kind: "close" }> | { kind: "close"; close: CloseInput },
    checks: boolean,
  ): Promise<Arrival> {
    const firewall: FirewallFact = checks ? { state: "pending" } : { state: "off" };
    const subject: AdmissionSubject =
      arrived.kind !== "close"
        ? arrived
        : {
            ...arrived,
            outcome: firewall.state === "off" ? await this.deps.closes.applyClose(trx, arrived.close) : undefined,
          };
    const decision = decideAdmission({
      subject,
      trusted: subject.kind === "answer" || (await this.deps.trust.admits(trx, origin.sender)),
      firewall,
      untrustedReason: this.deps.trust.reasonFor(origin.sender),
    });
    const disposition = await this.apply(trx, origin, decision, subject);
    return decision.kind === "answer" ? { disposition, answer: decision.answer } : { disposition };
  }

  /** A queued subject's turn: derived (a close), checked, then applied in one transaction with its check. */
  async settle(origin: Origin, payload: QueuePayload, firewall: FirewallSettling): Promise<void> {
    const { store, trust } = this.deps;
    const subject: AdmissionSubject =
      payload.kind === "close" ? { ...payload, outcome: await this.deps.closes.deriveClose(payload.close) } : payload;
    const facts = {
      subject,
      trusted: subject.kind === "answer" || (await trust.admits(store.db, origin.sender)),
      untrustedReason: trust.reasonFor(origin.sender),
    };
    let assessment: Assessment | undefined;
    let decision = decideAdmission({ ...facts, firewall: { state: "pending" } });
    if (decision.kind === "queue") {
      assessment = await firewall.assess(
        subject.kind === "close" ? { kind: "item", item: resultOf(subject) } : subject,
      );
      decision = decideAdmission({
        ...facts,
        firewall: assessment === undefined ? { state: "off" } : { state: "checked", assessment },
      });
    }
    const settled = decision;
    const check =
      assessment === undefined
        ? undefined
        : { assessment, held: settled.kind === "hold" || settled.kind === "withhold" };
    const applied = await store.db.transaction().execute(async (trx) => {
      if (!(await firewall.commit(trx, check))) return false;
      if (subject.kind === "close" && settled.kind !== "consume")
        await this.deps.closes.recordResult(trx, subject.close);
      await this.deps.history.setDisposition(
        trx,
        origin.conv,
        origin.recordHash,
        await this.apply(trx, origin, settled, subject),
      );
      return true;
    });
    if (!applied) return;
    if (settled.kind === "admit") this.deps.inbox.changed();
    if (settled.kind === "answer") this.deps.answers.answerArrived(settled.answer, settled.guidance);
    if (settled.kind === "withhold") this.deps.answers.answerWithheld(settled.answer, settled.withheld);
  }

  /** The one apply step: what the decision says, written in `trx`; returns the record's disposition. */
  private async apply(trx: Trx, origin: Origin, decision: Decision, subject: AdmissionSubject): Promise<Disposition> {
    if (decision.kind !== "queue") this.deps.arrived((this.deps.now ?? Date.now)());
    switch (decision.kind) {
      case "queue":
        await this.deps.firewall.enqueue(trx, { ...origin, payload: queuePayloadOf(subject) });
        return "queued";
      case "hold":
        await this.deps.holds.hold(trx, {
          ...origin,
          item: decision.item,
          reason: decision.reason,
          source: decision.source,
          ...(decision.checkId === undefined ? {} : { checkId: decision.checkId }),
          ...(decision.guidance === undefined ? {} : { guidance: decision.guidance }),
        });
        return "held";
      case "admit":
        await this.deps.inbox.admit(trx, {
          item: decision.item,
          ...(decision.guidance === undefined ? {} : { guidance: decision.guidance }),
          conv: origin.conv,
          recordHash: origin.recordHash,
        });
        return "delivered";
      case "consume":
      case "answer":
      case "withhold":
        return "consumed";
    }
  }

  /** Trusts `name` and sends its held items back through admission, in their original order. */
  async trustSender(name: string): Promise<{ released: number }> {
    const { store, holds } = this.deps;
    let delivered = false;
    let queued = false;
    const released = await store.db.transaction().execute(async (trx) => {
      await this.deps.trust.add(trx, name);
      const held = await holds.trustHoldsOf(trx, name);
      for (const hold of held) {
        const subject = { kind: "item" as const, item: hold.item };
        const decision = decideAdmission({
          subject,
          trusted: true,
          firewall: this.firewallFact(),
          untrustedReason: "",
        });
        const disposition = await this.apply(trx, hold, decision, subject);
        await holds.readmitted(trx, hold, null);
        await this.deps.history.setDisposition(trx, hold.conv, hold.recordHash, disposition);
        if (disposition === "delivered") delivered = true;
        else queued = true;
      }
      return held.length;
    });
    if (delivered) this.deps.inbox.changed();
    if (queued) this.deps.firewall.wake();
    return { released };
  }
}

function queuePayloadOf(subject: AdmissionSubject): QueuePayload {
  switch (subject.kind) {
    case "item":
      return { kind: "item", item: subject.item };
    case "answer":
      return { kind: "answer", answer: subject.answer };
    case "close":
      return { kind: "close", close: subject.close };
  }
}

/** The item a derived close is checked as: its result. */
function resultOf(subject: Extract<AdmissionSubject, { kind: "close" }>): InboundItem {
  if (subject.outcome?.kind !== "result") throw new Error("a close is checked only once its result is derived");
  return subject.outcome.item;
}

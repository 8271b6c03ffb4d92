/**
 * Admission (SPEC §7, §10): what enters the agent's inbox. Trust decides first (an untrusted
 * sender's item is held for the owner); then, when the owner's policy checks inbound subjects, the
 * firewall: the subject is queued privately in the storing transaction and its check settles later,
 * outside it. Without a check an item enters the inbox at once. Trusting a sender sends its held
 * items back through admission, in their original order.
 */
import type { InboundItem } from "@social-harness/protocol";
import type { CloseInput, CloseOutcome } from "../collectives/close.js";
import type { DaemonStore, Trx } from "../db/database.js";
import type { InboundFirewall } from "../firewall/inbound.service.js";
import type { History } from "../history/history.service.js";
import type { Holds } from "../holds/holds.service.js";
import type { Inbox } from "../inbox/inbox.service.js";
import type { Trust } from "../trust/trust.service.js";
import type { ArrivedAnswer } from "./classification.js";

export interface Candidate {
  readonly sender: string;
  readonly conv: string;
  readonly recordHash: string;
  readonly item: InboundItem;
}

export type Admitted = "delivered" | "held" | "queued";

export interface AdmissionDeps {
  readonly store: DaemonStore;
  readonly trust: Trust;
  readonly holds: Holds;
  readonly inbox: Inbox;
  readonly history: History;
  readonly firewall: InboundFirewall;
  /** Applies an all_gather close when no check defers it (collectives/close.ts). */
  readonly closes: { applyClose(trx: Trx, close: CloseInput): Promise<CloseOutcome> };
  /** Told that an inbound item arrived: the firewall's loop guard counts replies to it. */
  readonly arrived: () => void;
}

export class Admission {
  constructor(private readonly deps: AdmissionDeps) {}

  /** Inside the storing transaction: the item is held, queued for its check, or in the inbox. */
  async admit(trx: Trx, candidate: Candidate): Promise<Admitted> {
    this.deps.arrived();
    if (!(await this.deps.trust.admits(trx, candidate.sender))) {
      await this.holdUntrusted(trx, candidate);
      return "held";
    }
    return this.checkOrDeliver(trx, candidate);
  }

  private async checkOrDeliver(trx: Trx, candidate: Candidate): Promise<"delivered" | "queued"> {
    if (this.deps.firewall.active()) {
      await this.deps.firewall.enqueue(trx, { ...candidate, payload: { kind: "item", item: candidate.item } });
      return "queued";
    }
    await this.deps.inbox.admit(trx, { item: candidate.item, conv: candidate.conv, recordHash: candidate.recordHash });
    return "delivered";
  }

  private async holdUntrusted(trx: Trx, candidate: Candidate): Promise<void> {
    await this.deps.holds.hold(trx, {
      ...candidate,
      reason: this.deps.trust.reasonFor(candidate.sender),
      source: "trust",
    });
  }

  /** An answer record: checked first when the policy checks inbound subjects; trust does not hold answers. */
  async answer(
    trx: Trx,
    input: { sender: string; conv: string; recordHash: string; answer: ArrivedAnswer },
  ): Promise<"consumed" | "queued"> {
    this.deps.arrived();
    if (!this.deps.firewall.active()) return "consumed";
    await this.deps.firewall.enqueue(trx, { ...input, payload: { kind: "answer", answer: input.answer } });
    return "queued";
  }

  /**
   * An all_gather close: with inbound checks, it is queued behind its answers' checks and its result
   * projected when its turn comes; otherwise the result is derived now and admitted like any item.
   */
  async close(
    trx: Trx,
    input: { sender: string; conv: string; recordHash: string; close: CloseInput },
  ): Promise<Admitted | "consumed"> {
    this.deps.arrived();
    if (this.deps.firewall.active()) {
      await this.deps.firewall.enqueue(trx, { ...input, payload: { kind: "close", close: input.close } });
      return "queued";
    }
    const outcome = await this.deps.closes.applyClose(trx, input.close);
    if (outcome.kind === "consume") return "consumed";
    const candidate = { sender: input.sender, conv: input.conv, recordHash: input.recordHash, item: outcome.item };
    if (!(await this.deps.trust.admits(trx, input.sender))) {
      await this.holdUntrusted(trx, candidate);
      return "held";
    }
    await this.deps.inbox.admit(trx, {
      item: outcome.item,
      ...(outcome.guidance === undefined ? {} : { guidance: outcome.guidance }),
      conv: input.conv,
      recordHash: input.recordHash,
    });
    return "delivered";
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
        const candidate = {
          sender: hold.sender,
          conv: hold.conv,
          recordHash: hold.recordHash,
          item: JSON.parse(hold.item) as InboundItem,
        };
        const outcome = await this.checkOrDeliver(trx, candidate);
        await holds.readmitted(trx, hold, null);
        await this.deps.history.setDisposition(trx, hold.recordHash, outcome);
        if (outcome === "delivered") delivered = true;
        else queued = true;
      }
      return held.length;
    });
    if (delivered) this.deps.inbox.changed();
    if (queued) this.deps.firewall.wake();
    return { released };
  }
}

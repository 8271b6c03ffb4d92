/**
 * Admission (SPEC §7): a classified item enters the inbox only if its sender is admitted. Trust
 * decides today (an untrusted sender's item is held for the owner). This is where the message
 * firewall's private queue goes (SPEC §10): admission then queues the item durably inside the
 * storing transaction, and the firewall's workers admit or hold it later.
 */
import type { InboundItem } from "@social-harness/protocol";
import type { Trx } from "../db/database.js";
import type { Trust } from "../trust/trust.service.js";

export interface Candidate {
  readonly sender: string;
  readonly conv: string;
  readonly recordHash: string;
  readonly item: InboundItem;
}

export type Admitted = "delivered" | "held";

export class Admission {
  constructor(private readonly trust: Trust) {}

  /** Inside the storing transaction: the item goes to the inbox, or is held for the owner. */
  admit(trx: Trx, candidate: Candidate): Promise<Admitted> {
    return this.trust.admitOrHold(trx, candidate);
  }
}

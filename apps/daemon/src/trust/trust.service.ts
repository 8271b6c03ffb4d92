/**
 * Trust (SPEC §5, seed 002 "Identity And Trust"): a certified record is not admission by itself.
 * Under the `open` policy any registered agent is admitted; under `allowlist` only agents the
 * owner trusts. An item from an untrusted sender is held for the owner, never delivered. The
 * list changes only through the owner API; trusting a sender releases its holds in order (a
 * collective request released past its deadline arrives as an operationFailed item instead).
 */
import type { InboundItem } from "@social-harness/protocol";
import type { DaemonStore, DbOrTrx } from "../db/database.js";
import type { Inbox } from "../inbox/inbox.service.js";
import {
  addTrustedAgent,
  insertHold,
  isTrustedAgent,
  listTrustedAgents,
  openHolds,
  releaseHold,
  removeTrustedAgent,
} from "./trust.store.js";

export type TrustPolicy = "open" | "allowlist";

export interface HeldItem {
  readonly id: number;
  readonly sender: string;
  readonly conv: string;
  readonly item: InboundItem;
  readonly reason: string;
  readonly heldAt: number;
}

export class Trust {
  constructor(
    private readonly store: DaemonStore,
    private readonly inbox: Inbox,
    readonly policy: TrustPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  async admits(db: DbOrTrx, sender: string): Promise<boolean> {
    return this.policy === "open" || (await isTrustedAgent(db, sender));
  }

  /** Admits the item into the inbox, or holds it when the sender is not trusted. */
  async admitOrHold(
    trx: DbOrTrx,
    input: { sender: string; conv: string; recordHash: string; item: InboundItem },
  ): Promise<"delivered" | "held"> {
    if (await this.admits(trx, input.sender)) {
      await this.inbox.admit(trx, { item: input.item, conv: input.conv, recordHash: input.recordHash });
      return "delivered";
    }
    await insertHold(trx, {
      recordHash: input.recordHash,
      sender: input.sender,
      conv: input.conv,
      item: JSON.stringify(input.item),
      reason: `${input.sender} is not on the trust list (policy: allowlist)`,
      createdAt: this.now(),
    });
    return "held";
  }

  list(): Promise<{ name: string; addedAt: number }[]> {
    return listTrustedAgents(this.store.db);
  }

  /** Trusts `name` and releases its held items into the inbox in their original order. */
  async add(name: string): Promise<{ released: number }> {
    const released = await this.store.db.transaction().execute(async (trx) => {
      await addTrustedAgent(trx, name, this.now());
      const holds = await openHolds(trx, name);
      for (const hold of holds) {
        const token = await this.inbox.admit(trx, {
          item: JSON.parse(hold.item) as InboundItem,
          conv: hold.conv,
          recordHash: hold.recordHash,
        });
        await releaseHold(trx, hold.id, token, this.now());
      }
      return holds.length;
    });
    if (released > 0) this.inbox.changed();
    return { released };
  }

  async remove(name: string): Promise<{ removed: boolean }> {
    return { removed: await removeTrustedAgent(this.store.db, name) };
  }

  async holds(): Promise<HeldItem[]> {
    return (await openHolds(this.store.db)).map((h) => ({
      id: h.id,
      sender: h.sender,
      conv: h.conv,
      item: JSON.parse(h.item) as InboundItem,
      reason: h.reason,
      heldAt: h.createdAt,
    }));
  }
}

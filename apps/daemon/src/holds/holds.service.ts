/**
 * Items held for the owner (SPEC §5, §10): by trust (an untrusted sender) or by the firewall (a
 * rule or judge held it). Held items never reach the agent. The owner lists them with the check's
 * guidance and audit, releases one into the inbox (with its guidance), or discards it; the
 * certified history keeps the record either way and shows what became of it.
 */
import type { CheckedGuidance, InboundItem } from "@social-harness/protocol";
import type { DaemonStore, Trx } from "../db/database.js";
import type { CheckRecord } from "../firewall/checks.store.js";
import type { History } from "../history/history.service.js";
import type { Inbox } from "../inbox/inbox.service.js";
import {
  closeHold,
  findHold,
  insertHold,
  countOpenHolds,
  openHolds,
  type HoldRow,
  type HoldSource,
} from "./holds.store.js";

export interface HeldItem {
  readonly id: number;
  readonly source: HoldSource;
  readonly sender: string;
  readonly conv: string;
  readonly item: InboundItem;
  readonly reason: string;
  readonly heldAt: number;
  readonly checkId?: string;
  readonly guidance?: CheckedGuidance;
  /** The firewall check that held it: each middleware's decision or error. */
  readonly audit?: CheckRecord;
}

export type HoldErrorReason = "unknown-hold" | "not-held";

export class HoldError extends Error {
  override readonly name = "HoldError";
  constructor(
    readonly reason: HoldErrorReason,
    message: string,
  ) {
    super(message);
  }
}

export interface HoldInput {
  readonly recordHash: string;
  readonly sender: string;
  readonly conv: string;
  readonly item: InboundItem;
  readonly reason: string;
  readonly source: HoldSource;
  readonly checkId?: string;
  readonly guidance?: CheckedGuidance;
}

export class Holds {
  constructor(
    private readonly store: DaemonStore,
    private readonly inbox: Inbox,
    private readonly history: History,
    /** The firewall's audit records of the checks that held items (firewall/checks.store.ts). */
    private readonly checks: (ids: readonly string[]) => Promise<CheckRecord[]>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Holds an item inside the caller's transaction. */
  async hold(trx: Trx, input: HoldInput): Promise<number> {
    return insertHold(trx, {
      recordHash: input.recordHash,
      sender: input.sender,
      conv: input.conv,
      item: input.item,
      reason: input.reason,
      source: input.source,
      checkId: input.checkId ?? null,
      guidance: input.guidance ?? null,
      createdAt: this.now(),
    });
  }

  /** The open trust holds of `sender`, oldest first (trusting a sender re-admits them). */
  trustHoldsOf(trx: Trx, sender: string): Promise<HoldRow[]> {
    return openHolds(trx, { sender, source: "trust" });
  }

  /** Closes a trust hold whose item went back to admission (its sender is trusted now). */
  async readmitted(trx: Trx, hold: HoldRow, token: string | null): Promise<void> {
    await closeHold(trx, hold.id, { released: token }, this.now());
  }

  /** How many items are held now. */
  openCount(): Promise<number> {
    return countOpenHolds(this.store.db);
  }

  async list(): Promise<HeldItem[]> {
    const holds = await openHolds(this.store.db);
    const audits = new Map(
      (await this.checks(holds.flatMap((h) => (h.checkId === null ? [] : [h.checkId])))).map((c) => [c.checkId, c]),
    );
    return holds.map((h) => {
      const audit = h.checkId === null ? undefined : audits.get(h.checkId);
      return {
        id: h.id,
        source: h.source,
        sender: h.sender,
        conv: h.conv,
        item: h.item,
        reason: h.reason,
        heldAt: h.createdAt,
        ...(h.checkId === null ? {} : { checkId: h.checkId }),
        ...(h.guidance === null ? {} : { guidance: h.guidance }),
        ...(audit === undefined ? {} : { audit }),
      };
    });
  }

  /** Admits a held item into the inbox now, with its guidance; the owner decided. */
  async release(id: number): Promise<{ deliveryToken: string }> {
    const token = await this.store.db.transaction().execute(async (trx) => {
      const hold = await this.open(trx, id);
      const deliveryToken = await this.inbox.admit(trx, {
        item: hold.item,
        ...(hold.guidance === null ? {} : { guidance: hold.guidance }),
        conv: hold.conv,
        recordHash: hold.recordHash,
      });
      await closeHold(trx, id, { released: deliveryToken }, this.now());
      await this.history.setDisposition(trx, hold.conv, hold.recordHash, "delivered");
      return deliveryToken;
    });
    this.inbox.changed();
    return { deliveryToken: token };
  }

  /** Drops a held item; the certified history keeps its record. */
  async discard(id: number): Promise<{ discarded: true }> {
    await this.store.db.transaction().execute(async (trx) => {
      const hold = await this.open(trx, id);
      await closeHold(trx, id, { discarded: true }, this.now());
      await this.history.setDisposition(trx, hold.conv, hold.recordHash, "discarded");
    });
    return { discarded: true };
  }

  private async open(trx: Trx, id: number): Promise<HoldRow> {
    const hold = await findHold(trx, id);
    if (hold === undefined) throw new HoldError("unknown-hold", `no hold has the id ${id}`);
    if (hold.releasedAt !== null || hold.discardedAt !== null)
      throw new HoldError("not-held", `hold ${id} was already ${hold.releasedAt !== null ? "released" : "discarded"}`);
    return hold;
  }
}

/**
 * Ingress: the one path of a record that arrives from the router (seed 000). Position → verify →
 * project → classify (one inbound item, an answer, a close, or consumed) → admit (trust, then the
 * firewall's private queue) → store. Storing, classification and admission commit in one transaction, so a crash
 * never leaves a stored record unclassified or an item without its record; the record feed
 * acknowledges the router only after that commit. Our own posts are stored here when the router
 * pushes them back before the send path stores them; posts/ tells the collective engine of them.
 * This file is the batch (keys, the transaction, what its commit tells others); one record's
 * pipeline is ingress/receive-record.ts, its classification and admission ingress/arrival.ts.
 */
import { readRecord, type RecordFrame } from "@social-harness/protocol";
import { transactionDurableIf, type DaemonStore } from "../db/database.js";
import type { InboundFirewall } from "../firewall/inbound.service.js";
import type { PeerKeys } from "../identity/peer-keys.js";
import type { Inbox } from "../inbox/inbox.service.js";
import { receiveRecord, type ReceiveOutcome, type Received, type RecordDeps } from "./receive-record.js";

export interface IngressDeps extends RecordDeps {
  readonly store: DaemonStore;
  readonly peerKeys: PeerKeys;
  readonly firewall: InboundFirewall;
  readonly inbox: Inbox;
  /** Told after each stored record: a bound intent waiting on that conversation goes again. */
  readonly posts: { headMoved(conv: string): void };
}

export class Ingress {
  constructor(private readonly deps: IngressDeps) {}

  /** Verifies, classifies, admits and stores one pushed record. */
  async receive(frame: RecordFrame): Promise<ReceiveOutcome> {
    return (await this.receiveAll([frame]))[0]!;
  }

  /**
   * Receives pushed records in one transaction (a group commit: one fsync for the batch), each
   * in turn as if alone. Signers' keys are resolved first, outside the transaction.
   */
  async receiveAll(frames: readonly RecordFrame[]): Promise<ReceiveOutcome[]> {
    const { store } = this.deps;
    const keys = await this.deps.peerKeys.keysFor([
      ...new Set(frames.flatMap((f) => f.signatures.map((s) => s.signer))),
    ]);
    // A batch commits durably only if it binds what a power loss must not undo: a delivery token
    // (an item admitted into the inbox) or a hold. Every other record (our own posts, what the
    // firewall queues, answers and closes consumed) is certified at the router, which pushes it
    // again after a power loss, since the daemon's cursor goes back with it. The firewall's state
    // is read once, so a batch it checks delivers nothing at arrival.
    const checks = this.deps.firewall.active();
    const reads = frames.map((f) => readRecord(f.record));
    const pinned = new Map([...keys].filter((e): e is [string, Uint8Array] => e[1] !== undefined));
    const received = await transactionDurableIf(store.db, async (trx, mustSurvive) => {
      const received: Received[] = [];
      for (const [i, frame] of frames.entries())
        received.push(await receiveRecord(this.deps, trx, frame, reads[i]!, pinned, checks));
      if (received.some((r) => r.disposition === "delivered" || r.disposition === "held")) mustSurvive();
      return received;
    });
    if (received.some((r) => r.disposition === "delivered")) this.deps.inbox.changed();
    if (received.some((r) => r.disposition === "queued")) this.deps.firewall.wake();
    for (const { answer } of received) if (answer !== undefined) this.deps.collectives.answerArrived(answer);
    const stored = new Set(frames.filter((_, i) => received[i]!.outcome.kind === "stored").map((f) => f.conv));
    for (const conv of stored) this.deps.posts.headMoved(conv);
    return received.map((r) => r.outcome);
  }
}

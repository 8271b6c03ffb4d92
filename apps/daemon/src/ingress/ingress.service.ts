/**
 * Ingress: the one path of a record that arrives from the router (seed 000). Position → verify →
 * project → classify (one inbound item, an answer, a close, or consumed) → admit (trust, then the
 * firewall's private queue) → store. Storing, classification and admission commit in one transaction, so a crash
 * never leaves a stored record unclassified or an item without its record; the record feed
 * acknowledges the router only after that commit. Our own posts are stored here when the router
 * pushes them back before the send path stores them; posts/ tells the collective engine of them.
 */
import {
  readRecord,
  recordHashOf,
  type RecordFields,
  type RecordFrame,
  type RecordRead,
} from "@social-harness/protocol";
import type { Logger } from "pino";
import { relaxedTransaction, type DaemonStore, type Trx } from "../db/database.js";
import type { InboundFirewall } from "../firewall/inbound.service.js";
import type { Disposition, History } from "../history/history.service.js";
import type { VerifiedRecords } from "../history/verified-records.js";
import { verifyRecordFrame } from "../history/verify.js";
import type { PeerKeys } from "../identity/peer-keys.js";
import type { Inbox } from "../inbox/inbox.service.js";
import type { RouterKey } from "../identity/router-key.js";
import type { Admission, Arrival } from "./admission.js";
import type { ArrivedAnswer, Classification, CollectiveClassifier } from "./classification.js";
import { projectRecord } from "./projection.js";

export type ReceiveOutcome =
  { readonly kind: "stored" | "duplicate" } | { readonly kind: "gap" | "refused"; readonly reason: string };

/** One received record, and what its commit tells others afterwards. */
interface Received {
  readonly outcome: ReceiveOutcome;
  readonly disposition?: Disposition;
  readonly answer?: ArrivedAnswer;
}

export interface IngressDeps {
  readonly store: DaemonStore;
  readonly self: string;
  readonly history: History;
  readonly peerKeys: PeerKeys;
  readonly routerKey: RouterKey;
  readonly collectives: CollectiveClassifier;
  readonly admission: Admission;
  readonly firewall: InboundFirewall;
  readonly inbox: Inbox;
  /** Told after each stored record: a bound intent waiting on that conversation goes again. */
  readonly posts: { headMoved(conv: string): void };
  /** What the send path already verified or signed: our own pushed posts are not checked twice. */
  readonly verified?: VerifiedRecords;
  readonly log: Logger;
}

/** A child logger made only when something is logged: most records log nothing. */
function lazyChild(log: Logger, bindings: Record<string, unknown>): () => Logger {
  let child: Logger | undefined;
  return () => (child ??= log.child(bindings));
}

export class Ingress {
  constructor(private readonly deps: IngressDeps) {}

  /**
   * Projects and classifies a record from another author, then admits what it became: one inbound
   * item, an answer (checked when the policy checks inbound subjects), or an all_gather close.
   */
  private async classifyAndAdmit(
    trx: Trx,
    input: { record: RecordFields; hash: string; members: readonly string[] },
    log: () => Logger,
    checks: boolean,
  ): Promise<Arrival> {
    const { record, hash, members } = input;
    const projection = projectRecord(this.deps.self, record, members);
    const classification: Classification =
      projection.kind === "collective"
        ? await this.deps.collectives.classify(trx, {
            record,
            hash,
            members,
            part: projection.part,
            message: projection.message,
          })
        : projection.kind === "deliver"
          ? { kind: "item", item: projection.item }
          : { kind: "consume", reason: projection.reason };
    const origin = { sender: record.author, conv: record.conv, recordHash: hash };
    if (classification.kind === "consume") {
      log().info({ hash, reason: classification.reason }, "consumed a record");
      return { disposition: "consumed" };
    }
    return this.deps.admission.arrive(trx, origin, classification, checks);
  }

  /** Verifies, classifies, admits and stores one pushed record. */
  async receive(frame: RecordFrame): Promise<ReceiveOutcome> {
    return (await this.receiveAll([frame]))[0]!;
  }

  /**
   * Receives pushed records in one transaction (a group commit: one fsync for the batch), each
   * in turn as if alone. Signers' keys are resolved first, outside the transaction.
   */
  async receiveAll(frames: readonly RecordFrame[]): Promise<ReceiveOutcome[]> {
    const { store, self } = this.deps;
    const keys = await this.deps.peerKeys.keysFor([
      ...new Set(frames.flatMap((f) => f.signatures.map((s) => s.signer))),
    ]);
    // A batch that binds no delivery token commits without waiting for the disk: each of its
    // records is certified at the router, which pushes it again after a power loss (the daemon's
    // cursor goes back with it). Our own posts, and everything the firewall queues or trust holds,
    // are such records. The firewall's state is read once, so a batch it checks delivers nothing
    // at arrival; any other batch admits into the inbox and commits durably.
    const checks = this.deps.firewall.active();
    const reads = frames.map((f) => readRecord(f.record));
    const onlyOwn = reads.every((read) => read.ok && read.record.author === self);
    const pinned = new Map([...keys].filter((e): e is [string, Uint8Array] => e[1] !== undefined));
    const run = async (trx: Trx): Promise<Received[]> => {
      const received: Received[] = [];
      for (const [i, frame] of frames.entries())
        received.push(await this.receiveOne(trx, frame, reads[i]!, pinned, checks));
      return received;
    };
    const received =
      onlyOwn || checks ? await relaxedTransaction(store.db, run) : await store.db.transaction().execute(run);
    if (received.some((r) => r.disposition === "delivered")) this.deps.inbox.changed();
    if (received.some((r) => r.disposition === "queued")) this.deps.firewall.wake();
    for (const { answer } of received) if (answer !== undefined) this.deps.collectives.answerArrived(answer);
    const stored = new Set(frames.filter((_, i) => received[i]!.outcome.kind === "stored").map((f) => f.conv));
    for (const conv of stored) this.deps.posts.headMoved(conv);
    return received.map((r) => r.outcome);
  }

  private async receiveOne(
    trx: Trx,
    frame: RecordFrame,
    read: RecordRead,
    keys: ReadonlyMap<string, Uint8Array>,
    checks: boolean,
  ): Promise<Received> {
    const { conv, seq } = frame;
    const { history, self } = this.deps;
    const log = lazyChild(this.deps.log, { conv, seq });
    const hash = read.ok ? read.hash : recordHashOf(frame.record);
    const refuse = (reason: string, fields: Record<string, unknown> = {}): Received => {
      log().warn({ ...fields, hash, reason }, "refused a record");
      return { outcome: { kind: "refused", reason } };
    };

    // Position. Our own post may be stored already: the send path stores it from its certificate.
    const conversation = await history.conversation(trx, conv);
    const existing = await history.recordAt(trx, conv, seq);
    if (existing !== undefined) {
      return existing.hash === hash
        ? { outcome: { kind: "duplicate" } }
        : refuse("it conflicts with the certified record at its position", { stored: existing.hash });
    }
    const contiguous = conversation?.contiguousSeq ?? 0;
    if (seq > contiguous + 1)
      return { outcome: { kind: "gap", reason: `the daemon holds this conversation up to ${contiguous}` } };
    if (seq <= contiguous) return refuse("it is below the contiguous cursor but not stored");

    // Verify.
    const routerKey = this.deps.routerKey.current;
    if (routerKey === undefined) return refuse("the router key is not pinned yet");
    const prevHash = seq > 1 ? (await history.recordAt(trx, conv, seq - 1))?.hash : undefined;
    const known = this.deps.verified;
    const verified = verifyRecordFrame(
      frame,
      { self, routerKey, keys, prevHash, members: conversation?.members, verified: known },
      read,
    );
    if (!verified.ok) return refuse(`it does not verify: ${verified.reason}`);
    if (verified.record.author === self) known?.certified(hash, seq, frame.certificate);
    const { record, members } = verified;

    // Classify and admit (our own post is only stored), then store.
    const arrival: Arrival =
      record.author === self
        ? { disposition: "own" }
        : await this.classifyAndAdmit(trx, { record, hash, members }, log, checks);
    await history.append(trx, {
      record: {
        conv,
        seq,
        hash,
        record,
        bytes: frame.record,
        signatures: frame.signatures,
        certificate: frame.certificate,
      },
      disposition: arrival.disposition,
      opens: conversation === undefined ? members : undefined,
    });
    return { outcome: { kind: "stored" }, ...arrival };
  }
}

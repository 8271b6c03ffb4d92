/**
 * The certified history: every record of the agent's conversations, stored only after it
 * verifies, in each conversation's order. Storing a remote record classifies it in the same
 * transaction (deliver, hold or consume), so a crash never leaves a stored record unclassified
 * or an item without its record. The router is acknowledged only after the commit.
 */
import {
  checkPublicKey,
  encodeSignatureList,
  membersOfConversation,
  recordHashOf,
  verifyCertificate,
  type RecordFields,
  type RecordFrame,
} from "@social-harness/protocol";
import type { Logger } from "pino";
import type { DaemonStore, Trx } from "../db/database.js";
import type { Inbox } from "../inbox/inbox.service.js";
import { projectRecord, type Projection } from "../ingress/projection.js";
import type { Trust } from "../trust/trust.service.js";
import { verifyRecordFrame } from "./verify.js";
import {
  advanceContiguous,
  cursors,
  ensureConversation,
  findConversation,
  findPinnedKey,
  findRecordAt,
  insertRecord,
  pinKey,
  pinRouterKey,
} from "./history.store.js";

export type ReceiveOutcome =
  { readonly kind: "stored" | "duplicate" } | { readonly kind: "gap" | "refused"; readonly reason: string };

/** Handles the collective parts of records (the collective engine); consumed by default. */
export interface CollectiveSink {
  /** Runs inside the storing transaction; returns what happened to the record. */
  absorb(
    trx: Trx,
    input: {
      record: RecordFields;
      hash: string;
      members: readonly string[];
      projection: Extract<Projection, { kind: "collective" }>;
    },
  ): Promise<"delivered" | "held" | "consumed">;
  /** Runs inside the storing transaction of a record this agent authored. */
  absorbOwn(trx: Trx, input: { record: RecordFields; hash: string }): Promise<void>;
  /** Runs after the commit of any stored record. */
  afterCommit(record: RecordFields, hash: string): void;
}

export interface HistoryDeps {
  readonly store: DaemonStore;
  readonly self: string;
  readonly inbox: Inbox;
  readonly trust: Trust;
  readonly log: Logger;
  readonly resolveKeys: (names: readonly string[]) => Promise<Map<string, Uint8Array | undefined>>;
  readonly now?: () => number;
}

export class History {
  private routerKey: Uint8Array | undefined;
  /** Pinned keys read so far; a pinned key never changes. */
  private readonly pinned = new Map<string, Uint8Array>();

  private readonly storedListeners = new Set<(conv: string) => void>();
  collectives: CollectiveSink | undefined;

  constructor(private readonly deps: HistoryDeps) {}

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** Pins the router key at first contact; afterwards only that key is accepted. */
  async checkRouterKey(key: Uint8Array): Promise<boolean> {
    const pinned = await pinRouterKey(this.deps.store.db, key, this.now());
    this.routerKey = pinned;
    return Buffer.from(pinned).equals(Buffer.from(key));
  }

  onStored(listener: (conv: string) => void): void {
    this.storedListeners.add(listener);
  }

  cursors(): Promise<Record<string, number>> {
    return cursors(this.deps.store.db);
  }

  /** Pinned keys for `names`, resolving and pinning unknown ones through the router. */
  async keysFor(names: readonly string[]): Promise<Map<string, Uint8Array | undefined>> {
    const keys = new Map<string, Uint8Array | undefined>();
    const missing: string[] = [];
    for (const name of names) {
      const key = this.pinned.get(name) ?? (await findPinnedKey(this.deps.store.db, name));
      if (key === undefined) missing.push(name);
      else this.pinned.set(name, key);
      keys.set(name, key);
    }
    if (missing.length > 0) {
      for (const [name, key] of await this.deps.resolveKeys(missing)) {
        if (key === undefined || !checkPublicKey(key).ok) continue;
        const pinned = await pinKey(this.deps.store.db, name, key, this.now());
        this.pinned.set(name, pinned);
        keys.set(name, pinned);
      }
    }
    return keys;
  }

  /** Verifies, stores and classifies a pushed record. */
  async receive(frame: RecordFrame): Promise<ReceiveOutcome> {
    const { conv, seq } = frame;
    const log = this.deps.log.child({ conv, seq });
    const hash = recordHashOf(frame.record);
    const refuse = (reason: string, fields: Record<string, unknown> = {}): ReceiveOutcome => {
      log.warn({ ...fields, hash, reason }, "refused a record");
      return { kind: "refused", reason };
    };
    // Read the cursor before the record: our own post, stored by the send path meanwhile, then
    // shows up as a duplicate rather than as a hole below the cursor.
    const conversation = await findConversation(this.deps.store.db, conv);
    const existing = await findRecordAt(this.deps.store.db, conv, seq);
    if (existing !== undefined) {
      return existing.hash === hash
        ? { kind: "duplicate" }
        : refuse("it conflicts with the certified record at its position", { stored: existing.hash });
    }
    const contiguous = conversation?.contiguousSeq ?? 0;
    if (seq > contiguous + 1) return { kind: "gap", reason: `the daemon holds this conversation up to ${contiguous}` };
    if (seq <= contiguous) return refuse("it is below the contiguous cursor but not stored");
    if (this.routerKey === undefined) return refuse("the router key is not pinned yet");
    const keys = await this.keysFor(frame.signatures.map((s) => s.signer));
    const prevHash = seq > 1 ? (await findRecordAt(this.deps.store.db, conv, seq - 1))?.hash : undefined;
    const verified = verifyRecordFrame(frame, {
      self: this.deps.self,
      routerKey: this.routerKey,
      keys: new Map([...keys].filter((e): e is [string, Uint8Array] => e[1] !== undefined)),
      prevHash,
      members: conversation === undefined ? undefined : conversation.members,
    });
    if (!verified.ok) return refuse(`it does not verify: ${verified.reason}`);
    const { record, members } = verified;
    const projection = projectRecord(this.deps.self, record, members);
    let admitted = false;
    const stored = await this.deps.store.db.transaction().execute(async (trx) => {
      // The send path may have stored our own record since the check above.
      const raced = await findRecordAt(trx, conv, seq);
      if (raced !== undefined) return raced.hash === hash;
      if (conversation === undefined) await ensureConversation(trx, conv, members, this.now());
      const disposition = await this.dispose(trx, record, hash, members, projection);
      admitted = disposition === "delivered";
      if (projection.kind === "consume" && record.author !== this.deps.self) {
        log.info({ hash, reason: projection.reason }, "consumed a record");
      }
      await insertRecord(trx, {
        conv,
        seq,
        hash,
        kind: record.kind,
        author: record.author,
        postId: record.postId,
        at: record.at,
        bytes: frame.record,
        signatures: encodeSignatureList(frame.signatures),
        certificate: frame.certificate,
        disposition,
        storedAt: this.now(),
      });
      await this.advance(trx, conv, seq);
      return "stored" as const;
    });
    if (stored === true) return { kind: "duplicate" };
    if (stored === false) return refuse("it conflicts with the certified record at its position");
    if (admitted) this.deps.inbox.changed();
    this.collectives?.afterCommit(record, hash);
    for (const listener of this.storedListeners) listener(conv);
    return { kind: "stored" };
  }

  private async dispose(
    trx: Trx,
    record: RecordFields,
    hash: string,
    members: readonly string[],
    projection: Projection,
  ): Promise<string> {
    if (record.author === this.deps.self) {
      // Our own post may come back from the router before the send path stores it.
      await this.collectives?.absorbOwn(trx, { record, hash });
      return "own";
    }
    switch (projection.kind) {
      case "deliver":
        return this.deps.trust.admitOrHold(trx, {
          sender: record.author,
          conv: record.conv,
          recordHash: hash,
          item: projection.item,
        });
      case "collective":
        return this.collectives === undefined
          ? "consumed"
          : this.collectives.absorb(trx, { record, hash, members, projection });
      case "consume":
        return "consumed";
    }
  }

  private async advance(trx: Trx, conv: string, seq: number): Promise<void> {
    await advanceContiguous(trx, conv, seq);
  }

  /**
   * Stores a record this agent authored, once certified, inside the caller's transaction. Its
   * certificate is checked like any other; its classification is "own".
   */
  async storeOwn(
    trx: Trx,
    input: {
      conv: string;
      seq: number;
      hash: string;
      bytes: Uint8Array;
      record: RecordFields;
      signatures: RecordFrame["signatures"];
      certificate: Uint8Array;
    },
  ): Promise<void> {
    if (
      this.routerKey === undefined ||
      !verifyCertificate(this.routerKey, { conv: input.conv, seq: input.seq, record: input.hash }, input.certificate)
    ) {
      throw new Error("the router's certificate for our own record does not verify");
    }
    const existing = await findRecordAt(trx, input.conv, input.seq);
    if (existing !== undefined) {
      if (existing.hash !== input.hash) throw new Error("a different record is stored at our record's position");
      return;
    }
    await ensureConversation(trx, input.conv, membersOfConversation(input.conv) ?? [], this.now());
    await insertRecord(trx, {
      conv: input.conv,
      seq: input.seq,
      hash: input.hash,
      kind: input.record.kind,
      author: input.record.author,
      postId: input.record.postId,
      at: input.record.at,
      bytes: input.bytes,
      signatures: encodeSignatureList(input.signatures),
      certificate: input.certificate,
      disposition: "own",
      storedAt: this.now(),
    });
    await this.collectives?.absorbOwn(trx, { record: input.record, hash: input.hash });
    await this.advance(trx, input.conv, input.seq);
  }

  /** After a storeOwn transaction commits. */
  ownStored(record: RecordFields, hash: string): void {
    this.collectives?.afterCommit(record, hash);
    for (const listener of this.storedListeners) listener(record.conv);
  }
}

/**
 * The certified history: every record of the agent's conversations, stored only after it verifies
 * (ingress/) or after the router certified our own post (posts/), in each conversation's order,
 * with what classification did to it. Storage and queries only: owner history grants no delivery
 * authority and decides nothing about admission.
 */
import {
  agentAddress,
  encodeSignatureList,
  membersOfConversation,
  type HistoryExportRecord,
  type RecordFields,
  type SignatureEntry,
} from "@social-harness/protocol";
import { rollbacksOf, type DaemonStore, type DbOrTrx, type Trx } from "../db/database.js";
import { RawStatements, type HeldStatements } from "../db/raw-statements.js";
import { exportRecord } from "./history-export.js";
import {
  advanceContiguous,
  cursors,
  ensureConversation,
  findConversation,
  findPosition,
  findHead,
  recordAtHeld,
  findRecordByHash,
  findRecordsByHash,
  insertRecord,
  latestRecords,
  listConversations,
  listRecords,
  setDisposition,
  type ConversationRow,
  type Position,
  type StoredRecordRow,
} from "./history.store.js";

/** What classification did with a stored record. */
export type Disposition = "own" | "delivered" | "held" | "queued" | "consumed" | "discarded";

/** A certified record as it is stored: its exact bytes, signatures and the router's certificate. */
export interface CertifiedRecord {
  readonly conv: string;
  readonly seq: number;
  readonly hash: string;
  readonly record: RecordFields;
  readonly bytes: Uint8Array;
  readonly signatures: readonly SignatureEntry[];
  readonly certificate: Uint8Array;
}

export interface ConversationSummary {
  readonly conversation: string;
  readonly members: string[];
  readonly records: number;
  readonly lastAt: number | null;
}

export interface AppendInput {
  readonly record: CertifiedRecord;
  readonly disposition: Disposition;
  readonly opens?: readonly string[];
  /** False when the caller read, in this transaction, that no record is stored after this one. */
  readonly storedAfter?: boolean;
}

/**
 * A conversation whose records are all stored up to its contiguous cursor and none after it: the
 * next pushed record's position, known without a read (ingress asks it of every record).
 */
interface Tip {
  readonly members: readonly string[];
  readonly contiguousSeq: number;
  /** The record at the cursor; undefined while the cursor is 0. */
  readonly hash: string | undefined;
}

/** Tips kept at most; past it they are dropped and learnt again from the reads that miss. */
const MAX_TIPS = 10_000;

export class History {
  /**
   * The daemon is the only writer of its history, and every write goes through `insertHeld`, which
   * keeps these current. Entries may be written inside a transaction; any rollback on the database
   * (`rollbacksOf`) drops them all, so none outlives the state it was learnt from.
   */
  private readonly tips = new Map<string, Tip>();
  private tipsEpoch = 0;

  constructor(
    private readonly store: DaemonStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** The tips, emptied when a transaction was rolled back since they were last used. */
  private currentTips(): Map<string, Tip> {
    const epoch = rollbacksOf(this.store.db);
    if (epoch !== this.tipsEpoch) {
      this.tips.clear();
      this.tipsEpoch = epoch;
    }
    return this.tips;
  }

  private setTip(conv: string, tip: Tip): void {
    const tips = this.currentTips();
    if (tips.size >= MAX_TIPS && !tips.has(conv)) tips.clear();
    tips.set(conv, tip);
  }

  /** Every conversation's contiguous cursor: what the router pushes after. */
  cursors(): Promise<Record<string, number>> {
    return cursors(this.store.db);
  }

  conversation(db: DbOrTrx, conv: string): Promise<ConversationRow | undefined> {
    return findConversation(db, conv);
  }

  /**
   * A pushed record's conversation and the hashes at its position and the one before: from the
   * conversation's tip when the record is the next one, else in one read.
   */
  position(db: DbOrTrx, conv: string, seq: number): Promise<Position> {
    const tip = this.currentTips().get(conv);
    if (tip !== undefined && seq === tip.contiguousSeq + 1) {
      return Promise.resolve({
        conversation: { conv, members: tip.members, contiguousSeq: tip.contiguousSeq },
        atHash: undefined,
        prevHash: tip.hash,
        storedAfter: false,
      });
    }
    return findPosition(db, conv, seq).then((position) => {
      const { conversation, atHash, prevHash, storedAfter } = position;
      // Nothing at or after `seq` and the cursor right before it: the conversation is at its tip.
      if (conversation?.contiguousSeq === seq - 1 && atHash === undefined && !storedAfter)
        this.setTip(conv, { members: conversation.members, contiguousSeq: seq - 1, hash: prevHash });
      return position;
    });
  }

  /** The newest stored record of a conversation: what a proposal names as `prev`. */
  head(conv: string, db: DbOrTrx = this.store.db): Promise<{ seq: number; hash: string } | undefined> {
    // A tip is the newest stored record: nothing is stored after it.
    const tip = this.currentTips().get(conv);
    if (tip !== undefined)
      return Promise.resolve(tip.hash === undefined ? undefined : { seq: tip.contiguousSeq, hash: tip.hash });
    return findHead(db, conv);
  }

  recordByHash(db: DbOrTrx, conv: string, hash: string): Promise<StoredRecordRow | undefined> {
    return findRecordByHash(db, conv, hash);
  }

  /** The stored records among `hashes`, by hash, in one read. */
  recordsByHash(db: DbOrTrx, conv: string, hashes: readonly string[]): Promise<ReadonlyMap<string, StoredRecordRow>> {
    return findRecordsByHash(db, conv, hashes);
  }

  /** What became of a stored record since it was classified (a check settled, a hold released). */
  async setDisposition(db: DbOrTrx, conv: string, hash: string, disposition: Disposition): Promise<void> {
    await setDisposition(db, conv, hash, disposition);
  }

  /** The newest `limit` stored records across every conversation, newest first. */
  latest(limit: number): Promise<StoredRecordRow[]> {
    return latestRecords(this.store.db, limit);
  }

  /** A conversation's stored records after `after`, in order, at most `limit`. */
  recordsAfter(db: DbOrTrx, conv: string, after: number, limit: number): Promise<StoredRecordRow[]> {
    return listRecords(db, conv, after, limit);
  }

  /**
   * Stores a certified record at its position inside the caller's transaction and moves the
   * contiguous cursor. `opens` carries the certified members when the conversation may not be
   * stored yet; it is stored only when it is missing.
   */
  append(trx: Trx, input: AppendInput): Promise<void> {
    this.appendHeld(RawStatements.of(trx).within(trx), input);
    return Promise.resolve();
  }

  /** The same, with the statements of a transaction the caller holds (RawStatements.transactNow). */
  appendHeld(held: HeldStatements, input: AppendInput): void {
    this.insertHeld(held, input, false);
  }

  /**
   * Stores our own certified record unless it is stored already (ingress may have stored the
   * router's push of it first), in the caller's transaction. Throws when another record holds
   * its position.
   */
  appendOwnHeld(held: HeldStatements, input: AppendInput): void {
    const { conv, seq, hash } = input.record;
    if (this.insertHeld(held, input, true)) return;
    if (recordAtHeld(held, conv, seq)?.hash !== hash)
      throw new Error("a different record is stored at our record's position");
  }

  /** Inserts (with `ifAbsent`, unless the position is taken) and advances; false when nothing was inserted. */
  private insertHeld(held: HeldStatements, input: AppendInput, ifAbsent: boolean): boolean {
    const { record, disposition, opens, storedAfter } = input;
    const inserted = insertRecord(
      held,
      {
        conv: record.conv,
        seq: record.seq,
        hash: record.hash,
        kind: record.record.kind,
        author: record.record.author,
        postId: record.record.postId,
        at: record.record.at,
        bytes: record.bytes,
        signatures: encodeSignatureList([...record.signatures]),
        certificate: record.certificate,
        disposition,
        storedAt: this.now(),
      },
      ifAbsent,
    );
    if (!inserted) return false;
    const open = opens === undefined ? undefined : () => ensureConversation(held, record.conv, opens, this.now());
    // Nothing is stored after a tip: the record right after one needs no look ahead.
    const tips = this.currentTips();
    const tip = tips.get(record.conv);
    const afterTip = tip !== undefined && record.seq === tip.contiguousSeq + 1;
    const atTip = advanceContiguous(held, record.conv, record.seq, open, storedAfter !== false && !afterTip);
    // The cursor resting on this record with nothing after it makes it the tip (a direct
    // conversation's members are its key's); any other insert ends the tip until a read learns it.
    const members =
      tip?.members ?? (record.conv.startsWith("direct:") ? membersOfConversation(record.conv) : undefined);
    if (atTip && members !== undefined)
      this.setTip(record.conv, { members, contiguousSeq: record.seq, hash: record.hash });
    else tips.delete(record.conv);
    return true;
  }

  /** Owner listing of conversations, by key. */
  async conversations(page: { after?: string; limit: number }): Promise<{
    conversations: ConversationSummary[];
    nextCursor?: string;
  }> {
    const rows = await listConversations(this.store.db, page.after, page.limit + 1);
    const shown = rows.slice(0, page.limit);
    return {
      conversations: shown.map((r) => ({
        conversation: r.conv,
        members: r.members.map(agentAddress),
        records: r.seq,
        lastAt: r.lastAt,
      })),
      nextCursor: rows.length > page.limit ? shown.at(-1)?.conv : undefined,
    };
  }

  /** Owner listing of one conversation's records, in order. */
  async records(page: { conversation: string; after: number; limit: number }): Promise<{
    records: HistoryExportRecord[];
    nextCursor?: number;
  }> {
    const rows = await listRecords(this.store.db, page.conversation, page.after, page.limit + 1);
    const shown = rows.slice(0, page.limit);
    return {
      records: shown.map(exportRecord),
      nextCursor: rows.length > page.limit ? shown.at(-1)?.seq : undefined,
    };
  }
}

/**
 * The offline audit of a certified history (issue 13): every record is checked again with the
 * daemon's own verifier (canonical bytes, signatures, router certificate, chain link, membership),
 * its stored hash and readable fields against its bytes, and each conversation for holes and
 * duplicates. A pure walk over records and keys, so a daemon's database and an export file are
 * judged by the same rules; a verdict per conversation, never an exception for a bad record.
 */
import { isDeepStrictEqual } from "node:util";
import { membersOfConversation, readRecord, type RecordFields, type SignatureEntry } from "@social-harness/protocol";
import { verifyRecordFrame } from "./verify.js";

/** One stored record as a source holds it: its exact bytes and what the source claims about them. */
export interface AuditRecord {
  readonly conv: string;
  readonly seq: number;
  /** The record hash the source stores beside the bytes. */
  readonly hash: string;
  readonly bytes: Uint8Array;
  readonly signatures: readonly SignatureEntry[];
  readonly certificate: Uint8Array;
  /** Decoded fields the source shows readers (an export's lines); each must match the bytes. */
  readonly shown?: Partial<Record<keyof RecordFields, unknown>>;
}

/** The public keys the audit trusts: the router's and each agent's. */
export interface AuditKeys {
  readonly router: Uint8Array;
  readonly agents: ReadonlyMap<string, Uint8Array>;
}

/** What a source knows of a conversation besides its records (a daemon's database knows both). */
export interface ConversationState {
  /** Every record up to this seq was stored; missing ones were removed. */
  readonly contiguousSeq: number;
  /** The members the daemon recorded for the conversation. */
  readonly members: readonly string[];
}

export interface AuditFault {
  readonly seq: number;
  readonly problem: string;
}

export interface ConversationVerdict {
  readonly conversation: string;
  readonly ok: boolean;
  readonly records: number;
  readonly faults: readonly AuditFault[];
  /** Records above a daemon's contiguous cursor that it has not received yet: not a fault. */
  readonly awaiting?: readonly number[];
}

/** Audits each conversation of `records`; `states` come from a daemon's database, when audited. */
export function auditHistory(
  records: Iterable<AuditRecord>,
  keys: AuditKeys,
  states?: ReadonlyMap<string, ConversationState>,
): ConversationVerdict[] {
  const byConversation = new Map<string, AuditRecord[]>();
  for (const record of records) {
    const list = byConversation.get(record.conv) ?? [];
    list.push(record);
    byConversation.set(record.conv, list);
  }
  for (const conv of states?.keys() ?? []) if (!byConversation.has(conv)) byConversation.set(conv, []);
  return [...byConversation.keys()]
    .sort()
    .map((conv) => auditConversation(conv, byConversation.get(conv)!, keys, states?.get(conv)));
}

/** Audits one conversation's records (in any order); `state` is what a daemon's database recorded. */
export function auditConversation(
  conv: string,
  records: readonly AuditRecord[],
  keys: AuditKeys,
  state: ConversationState | undefined,
): ConversationVerdict {
  const faults: AuditFault[] = [];
  const bySeq = new Map<number, AuditRecord>();
  for (const record of records) {
    if (bySeq.has(record.seq)) faults.push({ seq: record.seq, problem: "two records claim this position" });
    else bySeq.set(record.seq, record);
  }
  const seqs = [...bySeq.keys()].sort((a, b) => a - b);
  const last = Math.max(seqs.at(-1) ?? 0, state?.contiguousSeq ?? 0);
  const awaiting: number[] = [];
  for (let seq = 1; seq <= last; seq++) {
    if (bySeq.has(seq)) continue;
    // Above a daemon's contiguous cursor a hole is a record still on its way, not a removal.
    if (state !== undefined && seq > state.contiguousSeq) awaiting.push(seq);
    else faults.push({ seq, problem: "the record at this position is missing" });
  }

  // One member of the conversation reads it: the verifier's membership check is the author's.
  const reader = membersOfConversation(conv)?.[0] ?? "";
  let members: readonly string[] | undefined;
  for (const seq of seqs) {
    const record = bySeq.get(seq)!;
    const predecessor = bySeq.get(seq - 1);
    // Decoded again only when needed: verifying decodes the bytes itself.
    const read = () => readRecord(record.bytes);
    const decoded = predecessor === undefined ? read() : undefined;
    const verified = verifyRecordFrame(
      {
        t: "record",
        conv: record.conv,
        seq,
        record: record.bytes,
        signatures: [...record.signatures],
        certificate: record.certificate,
      },
      {
        self: reader,
        routerKey: keys.router,
        keys: keys.agents,
        // A missing predecessor is reported once, above; the link is then taken as the record says.
        prevHash: predecessor?.hash ?? (decoded?.ok === true ? (decoded.record.prev ?? undefined) : undefined),
        members,
      },
    );
    if (!verified.ok) {
      faults.push({ seq, problem: verified.reason });
    } else {
      if (verified.hash !== record.hash) {
        faults.push({ seq, problem: `the stored hash ${record.hash} is not the hash of the record's bytes` });
      }
      const shown = shownDifferences(verified.record, record.shown);
      if (shown.length > 0) faults.push({ seq, problem: `shown ${shown.join(", ")} differ from the signed record` });
    }
    if (seq === 1) {
      const fallback = verified.ok ? undefined : read();
      members = verified.ok ? verified.members : fallback?.ok === true ? fallback.record.members : undefined;
    }
  }
  if (state !== undefined) {
    const expected = members ?? membersOfConversation(conv);
    if (expected !== undefined && state.members.join(",") !== expected.join(",")) {
      faults.push({
        seq: 0,
        problem: `the daemon records members ${state.members.join(",")}, not ${expected.join(",")}`,
      });
    }
  }
  faults.sort((a, b) => a.seq - b.seq);
  return {
    conversation: conv,
    ok: faults.length === 0,
    records: records.length,
    faults,
    ...(awaiting.length > 0 ? { awaiting } : {}),
  };
}

/** The readable fields a source shows that are not what the signed bytes say. */
function shownDifferences(record: RecordFields, shown: AuditRecord["shown"]): string[] {
  if (shown === undefined) return [];
  return Object.entries(shown)
    .filter(([field, value]) => !isDeepStrictEqual(value, (record as Record<string, unknown>)[field]))
    .map(([field]) => field);
}

/**
 * Reading the certified history back out: every stored record, in local commit order, as
 * HistoryExportRecord values. Owner history grants no delivery authority; it is a record.
 */
import {
  decodeCanonical,
  encodeBase64url,
  readRecord,
  type HistoryExportRecord,
  type RecordFrame,
} from "@social-harness/protocol";
import type { StoredRecordRow } from "./history.store.js";

export function exportRecord(row: StoredRecordRow): HistoryExportRecord {
  const read = readRecord(row.bytes);
  if (!read.ok) throw new Error(`stored record ${row.hash} no longer reads: ${read.reason}`);
  const signatures = decodeCanonical(row.signatures);
  if (!signatures.ok) throw new Error(`stored signatures of ${row.hash} are corrupt`);
  const { record } = read;
  return {
    conversation: row.conv,
    seq: row.seq,
    recordHash: row.hash,
    kind: record.kind,
    author: `agent:${record.author}`,
    postId: record.postId,
    at: record.at,
    prev: record.prev,
    content: record.content,
    ...(record.members === undefined ? {} : { members: record.members.map((m) => `agent:${m}`) }),
    disposition: row.disposition as HistoryExportRecord["disposition"],
    record: encodeBase64url(row.bytes),
    signatures: (signatures.value as RecordFrame["signatures"]).map((s) => ({
      signer: s.signer,
      signature: encodeBase64url(s.signature),
    })),
    certificate: encodeBase64url(row.certificate),
  };
}

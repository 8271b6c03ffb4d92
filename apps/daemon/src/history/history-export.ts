/**
 * Reading the certified history back out: every stored record, in local commit order, as
 * HistoryExportRecord values. Owner history grants no delivery authority; it is a record.
 */
import {
  agentAddress,
  decodeSignatureList,
  encodeBase64url,
  readRecord,
  type HistoryExportRecord,
} from "@social-harness/protocol";
import type { StoredRecordRow } from "./history.store.js";

export function exportRecord(row: StoredRecordRow): HistoryExportRecord {
  const read = readRecord(row.bytes);
  if (!read.ok) throw new Error(`stored record ${row.hash} no longer reads: ${read.reason}`);
  const { record } = read;
  return {
    conversation: row.conv,
    seq: row.seq,
    recordHash: row.hash,
    kind: record.kind,
    author: agentAddress(record.author),
    postId: record.postId,
    at: record.at,
    prev: record.prev,
    content: record.content,
    ...(record.members === undefined ? {} : { members: record.members.map(agentAddress) }),
    disposition: row.disposition as HistoryExportRecord["disposition"],
    record: encodeBase64url(row.bytes),
    signatures: decodeSignatureList(row.signatures).map((s) => ({
      signer: s.signer,
      signature: encodeBase64url(s.signature),
    })),
    certificate: encodeBase64url(row.certificate),
  };
}

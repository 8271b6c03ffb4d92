import {
  actionMessage,
  encodeRecord,
  generateSigningKey,
  mintId,
  recordHashOf,
  signCertificate,
} from "@social-harness/protocol";
import { describe, expect, it } from "vitest";
import { auditConversation, auditHistory, type AuditRecord } from "./history-audit.js";

const router = generateSigningKey();
const alice = generateSigningKey();
const bob = generateSigningKey();
const keys = {
  router: router.publicKey,
  agents: new Map([
    ["alice", alice.publicKey],
    ["bob", bob.publicKey],
  ]),
};
const CONV = "direct:alice,bob";

/** A chain of `count` certified posts by alice in the direct conversation. */
function chain(count: number): AuditRecord[] {
  const records: AuditRecord[] = [];
  let prev: string | null = null;
  for (let seq = 1; seq <= count; seq++) {
    const bytes = encodeRecord({
      kind: "post",
      conv: CONV,
      prev,
      author: "alice",
      postId: mintId("post"),
      at: 1_796_000_000_000 + seq,
      content: [{ type: "text", text: `m${seq}` }],
    });
    const hash = recordHashOf(bytes);
    records.push({
      conv: CONV,
      seq,
      hash,
      bytes,
      signatures: [{ signer: "alice", signature: alice.sign(actionMessage(bytes)) }],
      certificate: signCertificate(router, { conv: CONV, seq, record: hash }),
    });
    prev = hash;
  }
  return records;
}

describe("auditConversation", () => {
  it("passes a complete chain in any order", () => {
    expect(auditConversation(CONV, chain(4).reverse(), keys, undefined)).toEqual({
      conversation: CONV,
      ok: true,
      records: 4,
      faults: [],
    });
  });

  it("reports records above a daemon's contiguous cursor as awaited, and holes below it as missing", () => {
    const records = chain(5).filter((r) => r.seq !== 2 && r.seq !== 4);
    const verdict = auditConversation(CONV, records, keys, { contiguousSeq: 2, members: ["alice", "bob"] });
    expect(verdict).toMatchObject({
      ok: false,
      awaiting: [4],
      faults: [{ seq: 2, problem: "the record at this position is missing" }],
    });
  });

  it("reports records a daemon stored up to and then lost, two records at one position, and wrong members", () => {
    const records = chain(2);
    const verdict = auditConversation(CONV, [...records, records[1]!], keys, {
      contiguousSeq: 3,
      members: ["alice", "carol"],
    });
    expect(verdict.faults.map((f) => f.problem)).toEqual([
      "the daemon records members alice,carol, not alice,bob",
      "two records claim this position",
      "the record at this position is missing",
    ]);
  });

  it("reports a signer whose key it does not hold, and groups records by conversation", () => {
    const verdicts = auditHistory(chain(1), { router: router.publicKey, agents: new Map() });
    expect(verdicts).toEqual([
      { conversation: CONV, ok: false, records: 1, faults: [{ seq: 1, problem: "no pinned key for alice" }] },
    ]);
  });
});

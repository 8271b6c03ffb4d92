import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeCanonical } from "./cbor.js";
import { signCertificate, verifyCertificate } from "./certificate.js";
import { mintId, recordHashOf } from "./ids.js";
import {
  encodeFieldsWithContent,
  encodeRecord,
  fieldsOfDraft,
  readRecord,
  verifyActionSignature,
  type RecordDraft,
} from "./records.js";
import { generateSigningKey } from "./signatures.js";

const post = (overrides: Partial<RecordDraft> = {}): RecordDraft => ({
  kind: "post",
  conv: "direct:alice,bob",
  prev: null,
  author: "alice",
  postId: mintId("post"),
  at: 1_700_000_000_000,
  content: [
    { type: "text", text: "hello" },
    { type: "collective", op: "multicast" },
  ],
  ...overrides,
});

describe("records", () => {
  it("reads back what it encodes and hashes the exact bytes", () => {
    const bytes = encodeRecord(post());
    const read = readRecord(bytes);
    expect(read.ok && read.record.content).toEqual(post().content);
    expect(read.ok && read.hash).toBe(recordHashOf(bytes));
  });

  it("gives a draft's fields exactly as readRecord reads them back from its encoding", () => {
    const drafts = [
      post(),
      post({ prev: recordHashOf(new Uint8Array([1])), content: [{ type: "data", value: { n: 1, list: [true] } }] }),
      post({ kind: "genesis", conv: "group:alice,bob,carol", content: [], members: ["alice", "bob", "carol"] }),
    ];
    for (const draft of drafts) {
      const read = readRecord(encodeRecord(draft));
      expect(read.ok).toBe(true);
      if (!read.ok) continue;
      expect(fieldsOfDraft(draft)).toStrictEqual(read.record);
      expect(Object.keys(fieldsOfDraft(draft))).toEqual(Object.keys(read.record));
      expect(encodeCanonical(fieldsOfDraft(draft))).toEqual(encodeRecord(draft));
    }
  });

  it("encodes a record with its content copied from canonical bytes exactly as it encodes it whole", () => {
    // Data values the one-pass writer leaves to cborg (floats, non-ASCII keys) among them: the
    // content's bytes are copied as they are, whoever encoded them.
    const data = fc.jsonValue().filter((value) => {
      try {
        encodeCanonical(value);
        return true;
      } catch {
        return false;
      }
    });
    const content = fc.array(
      fc.oneof(
        fc.record({ type: fc.constant("text" as const), text: fc.string({ unit: "grapheme", maxLength: 200 }) }),
        fc.record({ type: fc.constant("data" as const), value: data }),
      ),
      { minLength: 1, maxLength: 4 },
    );
    fc.assert(
      fc.property(content, (parts) => {
        const fields = fieldsOfDraft(post({ content: parts as RecordDraft["content"] }));
        const whole = encodeCanonical(fields);
        expect(Buffer.from(encodeFieldsWithContent(fields, encodeCanonical(fields.content))).toString("hex")).toBe(
          Buffer.from(whole).toString("hex"),
        );
      }),
      { numRuns: 1000 },
    );
    const genesis = fieldsOfDraft(
      post({ kind: "genesis", conv: "group:alice,bob,carol", content: [], members: ["alice", "bob", "carol"] }),
    );
    expect(encodeFieldsWithContent(genesis, encodeCanonical([]))).toEqual(encodeCanonical(genesis));
  });

  it("verifies the author's action signature over the bytes as they arrived", () => {
    const key = generateSigningKey();
    const bytes = encodeRecord(post());
    const signature = key.sign(Buffer.concat([Buffer.from("social-harness/record/v1\0"), bytes]));
    expect(verifyActionSignature(key.publicKey, bytes, signature)).toBe(true);
    const tampered = new Uint8Array(bytes);
    tampered[tampered.length - 3]! ^= 1;
    expect(verifyActionSignature(key.publicKey, tampered, signature)).toBe(false);
  });

  it("drops fields it does not know only after the bytes are checked", () => {
    const value = { ...Object.fromEntries(Object.entries(post())), v: 1, future: "field" };
    const bytes = encodeCanonical(value);
    const read = readRecord(bytes);
    expect(read.ok).toBe(true);
    expect(read.ok && "future" in read.record).toBe(false);
    expect(read.ok && read.hash).toBe(recordHashOf(bytes));
  });

  it("refuses an author outside the conversation", () => {
    expect(readRecord(encodeRecord(post({ author: "carol" })))).toMatchObject({ ok: false });
  });

  it("refuses another record version", () => {
    const bytes = encodeCanonical({ ...post(), v: 2 });
    expect(readRecord(bytes)).toMatchObject({ ok: false, reason: expect.stringContaining("version") });
  });

  it("requires a genesis to list exactly the group's members", () => {
    const genesis = post({
      kind: "genesis",
      conv: "group:alice,bob,carol",
      content: [],
      members: ["alice", "bob", "carol"],
    });
    expect(readRecord(encodeRecord(genesis)).ok).toBe(true);
    expect(readRecord(encodeRecord({ ...genesis, members: ["alice", "bob"] })).ok).toBe(false);
    expect(readRecord(encodeRecord({ ...genesis, conv: "direct:alice,bob" })).ok).toBe(false);
  });

  it("certifies a position with the router's key", () => {
    const router = generateSigningKey();
    const position = { conv: "direct:alice,bob", seq: 3, record: recordHashOf(new Uint8Array([1])) };
    const certificate = signCertificate(router, position);
    expect(verifyCertificate(router.publicKey, position, certificate)).toBe(true);
    expect(verifyCertificate(router.publicKey, { ...position, seq: 4 }, certificate)).toBe(false);
  });
});

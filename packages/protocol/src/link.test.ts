/** The hand-checked hot frames and records read exactly as their schemas read them. */
import { describe, expect, it } from "vitest";
import { decodeStrict, encodeCanonical } from "./cbor.js";
import { mintId } from "./ids.js";
import {
  ClientFrameSchema,
  decodeClientFrame,
  decodeRouterFrame,
  decodeSignatureList,
  encodeFrame,
  encodeSignatureList,
  encodeStoredRecordFrame,
  RouterFrameSchema,
} from "./link.js";
import { readRecord, RecordSchema } from "./records.js";

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);
const hash = mintId("post").replace("pst_", "rec_");
const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

const decodedValue = (frame: unknown) => {
  const read = decodeStrict(encodeCanonical(frame));
  if (!read.ok) throw new Error(read.reason);
  return read.value;
};

describe("hot link frames", () => {
  const client = [
    { t: "propose", id: 7, record: bytes(40, 1), signature: bytes(64, 2) },
    { t: "propose", id: 7, record: bytes(40, 1), signature: bytes(64, 2), extra: "dropped" },
    { t: "ack", conv: "direct:alice,bob", seq: 3 },
    { t: "ack", conv: "direct:alice,bob", seq: 3, later: [1, 2] },
    { t: "propose", id: 8, record: bytes(40, 1), signature: bytes(64, 2), traceparent },
  ];
  const router = [
    {
      t: "record",
      conv: "direct:alice,bob",
      seq: 2,
      record: bytes(40, 1),
      signatures: [{ signer: "alice", signature: bytes(64, 2), unknown: 1 }],
      certificate: bytes(64, 3),
      extra: true,
    },
    { t: "certified", id: 1, conv: "direct:alice,bob", seq: 1, record: hash, certificate: bytes(64, 3), x: 1 },
    {
      t: "record",
      conv: "direct:alice,bob",
      seq: 3,
      record: bytes(40, 1),
      signatures: [{ signer: "alice", signature: bytes(64, 2) }],
      certificate: bytes(64, 3),
      traceparent,
    },
    { t: "head-moved", id: 4, conv: "group:alice,bob,carol", head: hash, extra: 1 },
    { t: "head-moved", id: 0, conv: "direct:alice,bob", head: null },
  ];

  it("decodes each to what the schema gives, unknown keys dropped", () => {
    for (const frame of client) {
      expect(decodeClientFrame(encodeCanonical(frame))).toEqual({
        ok: true,
        frame: ClientFrameSchema.parse(decodedValue(frame)),
      });
    }
    for (const frame of router) {
      expect(decodeRouterFrame(encodeCanonical(frame))).toEqual({
        ok: true,
        frame: RouterFrameSchema.parse(decodedValue(frame)),
      });
    }
  });

  it("carries a traceparent on propose and record frames, and leaves it out when absent", () => {
    const proposed = decodeClientFrame(encodeCanonical(client[4]));
    expect(proposed.ok && proposed.frame.t === "propose" && proposed.frame.traceparent).toBe(traceparent);
    const plain = decodeClientFrame(encodeCanonical(client[0]));
    expect(plain.ok && "traceparent" in plain.frame).toBe(false);
    const pushed = decodeRouterFrame(encodeCanonical(router[2]));
    expect(pushed.ok && pushed.frame.t === "record" && pushed.frame.traceparent).toBe(traceparent);
  });

  it("refuses what the schema refuses", () => {
    const bad = [
      { t: "propose", id: -1, record: bytes(4, 1), signature: bytes(64, 2) },
      { t: "propose", id: 1.5, record: bytes(4, 1), signature: bytes(64, 2) },
      { t: "propose", id: 1, record: "text", signature: bytes(64, 2) },
      { t: "ack", conv: "direct:alice,bob", seq: 0 },
      { t: "propose", id: 1, record: bytes(4, 1), signature: bytes(64, 2), traceparent: "not-a-traceparent" },
      {
        t: "propose",
        id: 1,
        record: bytes(4, 1),
        signature: bytes(64, 2),
        traceparent: `${traceparent}-${"a".repeat(250)}`,
      },
      { t: "propose", id: 1, record: bytes(4, 1), signature: bytes(64, 2), traceparent: 7 },
    ];
    for (const frame of bad) expect(decodeClientFrame(encodeCanonical(frame)).ok).toBe(false);
    const badRouter = [
      { ...router[0], signatures: [] },
      { ...router[0], signatures: [{ signer: "A!", signature: bytes(64, 2) }] },
      { ...router[1], record: "rec_short" },
      { ...router[2], traceparent: traceparent.toUpperCase() },
      { ...router[3], head: "rec_short" },
      { ...router[3], id: -1 },
      { ...router[4], conv: 7 },
    ];
    for (const frame of badRouter) expect(decodeRouterFrame(encodeCanonical(frame)).ok).toBe(false);
  });
});

describe("a stored record's push frame", () => {
  const stored = (signers: string[], body = bytes(300, 5)) => ({
    conv: "group:g1:alice,bob,carol",
    seq: 9,
    bytes: body,
    signatures: encodeSignatureList(signers.map((signer, i) => ({ signer, signature: bytes(64, i + 1) }))),
    certificate: bytes(64, 7),
  });
  /** What the router wrote before: the list decoded, then the whole frame encoded. */
  const generic = (record: ReturnType<typeof stored>, traceparent?: string) =>
    encodeFrame({
      t: "record",
      conv: record.conv,
      seq: record.seq,
      record: record.bytes,
      signatures: decodeSignatureList(record.signatures),
      certificate: record.certificate,
      ...(traceparent === undefined ? {} : { traceparent }),
    });

  it("is the frame encodeFrame writes, byte for byte, for one signer, several, and with a traceparent", () => {
    for (const record of [
      stored(["alice"]),
      stored(["alice", "bob", "carol"]),
      stored(["bob"], Buffer.alloc(1000, 9)),
    ]) {
      expect(Buffer.from(encodeStoredRecordFrame(record))).toEqual(Buffer.from(generic(record)));
      expect(Buffer.from(encodeStoredRecordFrame(record, traceparent))).toEqual(
        Buffer.from(generic(record, traceparent)),
      );
    }
  });

  it("reads back as the record frame of the stored record", () => {
    const record = stored(["alice", "bob"]);
    const read = decodeRouterFrame(encodeStoredRecordFrame(record, traceparent));
    expect(read).toEqual({
      ok: true,
      frame: {
        t: "record",
        conv: record.conv,
        seq: 9,
        record: record.bytes,
        signatures: [
          { signer: "alice", signature: bytes(64, 1) },
          { signer: "bob", signature: bytes(64, 2) },
        ],
        certificate: record.certificate,
        traceparent,
      },
    });
  });
});

describe("hot record fields", () => {
  const fields = {
    v: 1,
    kind: "post",
    conv: "direct:alice,bob",
    prev: hash,
    author: "alice",
    postId: mintId("post"),
    at: 1_700_000_000_000,
    content: [
      { type: "text", text: "hi", future: 1 },
      { type: "collective", op: "multicast" },
    ],
  };

  it("reads a record to what RecordSchema gives, unknown top-level fields dropped", () => {
    const value = { ...fields, unknownField: "dropped" };
    const read = readRecord(encodeCanonical(value));
    expect(read.ok && read.record).toEqual(RecordSchema.parse(decodedValue(value)));
  });

  it("refuses the malformed with the schema's explanation", () => {
    for (const value of [
      { ...fields, at: -1 },
      { ...fields, prev: "rec_x" },
      { ...fields, author: "Alice" },
      { ...fields, content: [{ text: "no type" }] },
      { ...fields, conv: "direct:bob,alice" },
    ]) {
      const read = readRecord(encodeCanonical(value));
      expect(read.ok).toBe(false);
      expect(!read.ok && read.reason).toMatch(/malformed record/);
    }
  });
});

/** readContent's hand-checked parts read exactly as the schemas read them, refusals included. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { decodeStrict, encodeCanonical } from "./cbor.js";
import {
  CollectivePartSchema,
  MessagePartSchema,
  readContent,
  type CollectivePart,
  type ContentRead,
  type DataPart,
  type TextPart,
} from "./content.js";
import { mintId } from "./ids.js";

/** readContent as the schemas alone would read it. */
function bySchemas(content: readonly unknown[]): ContentRead {
  const message: (TextPart | DataPart)[] = [];
  let collective: CollectivePart | undefined;
  for (const [i, part] of content.entries()) {
    if ((part as { type?: unknown } | null)?.type === "collective") {
      if (collective !== undefined) return { ok: false, reason: "the collective part is duplicated" };
      const parsed = CollectivePartSchema.safeParse(part);
      if (!parsed.success) return { ok: false, reason: `malformed collective part: ${z.prettifyError(parsed.error)}` };
      collective = parsed.data;
      continue;
    }
    const parsed = MessagePartSchema.safeParse(part);
    if (!parsed.success) return { ok: false, reason: `part ${i} is malformed: ${z.prettifyError(parsed.error)}` };
    message.push(parsed.data);
  }
  return { ok: true, message, collective };
}

/** The content as a record's decoder hands it over. */
const decoded = (content: readonly unknown[]): unknown[] => {
  const read = decodeStrict(encodeCanonical(content));
  if (!read.ok) throw new Error(read.reason);
  return read.value as unknown[];
};

const id = mintId("post").replace("pst_", "col_");
const recordHash = mintId("post").replace("pst_", "rec_");
const nonce = "n".repeat(43);
const requestedSchema = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] };
const request = (fields: Record<string, unknown> = {}) => ({
  type: "collective",
  op: "all_gather",
  id,
  nonce,
  deadlineAt: 1_700_000_000,
  requestedSchema,
  ...fields,
});
const close = (answers: unknown, fields: Record<string, unknown> = {}) => ({
  type: "collective",
  op: "close",
  id,
  answers,
  ...fields,
});
const answer = (response: unknown, extra: Record<string, unknown> = {}) => ({
  type: "collective",
  op: "answer",
  id,
  response,
  ...extra,
});

describe("readContent", () => {
  const contents: unknown[][] = [
    [
      { type: "text", text: "hi" },
      { type: "collective", op: "multicast" },
    ],
    [
      { type: "text", text: "hi", future: 1 },
      { type: "collective", op: "multicast", id, later: [1] },
    ],
    [answer({ action: "accept", content: { ok: true, n: -2.5, s: "x", tags: ["a", "b"], none: [] } })],
    [answer({ action: "accept", content: {} }, { extra: "dropped" })],
    [answer({ action: "decline", content: { ok: true } })],
    [answer({ action: "accept", content: { é: 1, "10": "ten", "2": false } })],
    [
      { type: "data", value: { a: [1, null] } },
      { type: "text", text: "" },
    ],
    [{ type: "text", text: "q?" }, request()],
    [request({ op: "gather", extra: 1 })],
    [
      close(
        [
          { member: "alice", answer: recordHash, extra: 1 },
          { member: "bob", answer: null },
        ],
        { more: true },
      ),
    ],
  ];
  const refused: unknown[][] = [
    [{ type: "text", text: 3 }],
    [{ type: "text" }],
    [answer({ action: "accept", content: { deep: { no: 1 } } })],
    [answer({ action: "accept", content: { mixed: ["a", 1] } })],
    [answer({ action: "accept", content: null })],
    [answer({ action: "accept" })],
    [answer({ action: "maybe", content: {} })],
    [answer({ action: "accept", content: {} }, { id: "col_short" })],
    [answer(null)],
    [answer(["accept"])],
    [
      { type: "collective", op: "multicast" },
      { type: "collective", op: "multicast" },
    ],
    [{ type: "collective", op: "unknown" }],
    [request({ nonce: "short" })],
    [request({ deadlineAt: 0 })],
    [request({ deadlineAt: 1.5 })],
    [request({ requestedSchema: { type: "array" } })],
    [request({ id: "col_x" })],
    [close([])],
    [close([{ member: "Alice!", answer: null }])],
    [close([{ member: "alice", answer: "rec_short" }])],
    [close([{ member: "alice" }])],
    [close([null])],
    [close({ member: "alice", answer: null })],
  ];

  it("reads each content as the schemas do, unknown keys dropped", () => {
    for (const content of contents) {
      const read = readContent(decoded(content));
      expect(read.ok).toBe(true);
      expect(read).toEqual(bySchemas(decoded(content)));
    }
  });

  it("refuses what the schemas refuse, with their words", () => {
    for (const content of refused) {
      const read = readContent(decoded(content));
      expect(read.ok).toBe(false);
      expect(read).toEqual(bySchemas(decoded(content)));
    }
  });

  it("refuses answer values the encoder cannot carry, as the schemas do", () => {
    for (const value of [Number.NaN, Infinity, -Infinity, 10n, undefined, () => 1]) {
      const content = [answer({ action: "accept", content: { v: value } })];
      expect(readContent(content).ok).toBe(false);
      expect(readContent(content)).toEqual(bySchemas(content));
    }
  });

  it("agrees with the schemas on arbitrary answers, closes, requests and text parts", () => {
    const value = fc.oneof(
      fc.string(),
      fc.double(),
      fc.boolean(),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 3 }),
      fc.constant(null),
      fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2 }),
    );
    const response = fc.oneof(
      fc.record({ action: fc.constantFrom("accept", "decline", "other"), content: fc.dictionary(fc.string(), value) }),
      fc.record({ action: fc.constantFrom("accept", "decline") }),
      fc.anything(),
    );
    const part = fc.oneof(
      fc.record({
        type: fc.constant("collective"),
        op: fc.constant("answer"),
        id: fc.constantFrom(id, "col_x"),
        response,
      }),
      fc.record({ type: fc.constant("text"), text: fc.oneof(fc.string(), fc.integer()) }),
      fc.record({ type: fc.constant("collective"), op: fc.constantFrom("multicast", "answer", "close") }),
      fc.record({
        type: fc.constant("collective"),
        op: fc.constantFrom("close", "gather"),
        id: fc.constantFrom(id, "col_x"),
        answers: fc.array(
          fc.record({
            member: fc.constantFrom("alice", "bob", "Bob", ""),
            answer: fc.constantFrom(recordHash, null, "rec_x", 3),
          }),
          { maxLength: 3 },
        ),
      }),
      fc.record({
        type: fc.constant("collective"),
        op: fc.constantFrom("gather", "all_gather", "close"),
        id: fc.constantFrom(id, "col_x"),
        nonce: fc.constantFrom(nonce, "x"),
        deadlineAt: fc.oneof(fc.integer(), fc.double(), fc.constant(2 ** 60)),
        requestedSchema: fc.constantFrom(requestedSchema, { type: "object", properties: {} }, null, "x"),
      }),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 3 }), (content) => {
        expect(readContent(content)).toEqual(bySchemas(content));
      }),
      { numRuns: 2_000 },
    );
  });
});

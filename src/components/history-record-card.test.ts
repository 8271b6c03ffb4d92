import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { HistoryRecord } from "@/trpc/owner-api";
import { HistoryRecordCard } from "./history-record-card";

const ID = "col_" + "A".repeat(43);

function record(fields: Partial<HistoryRecord>): HistoryRecord {
  return {
    conversation: "group:alice,bob,carol",
    seq: 1,
    recordHash: "rec_" + "R".repeat(43),
    kind: "post",
    author: "agent:alice",
    postId: "pst_" + "P".repeat(43),
    at: Date.UTC(2030, 0, 1, 12, 0, 0),
    prev: null,
    content: [],
    disposition: "delivered",
    record: "",
    signatures: [],
    certificate: "",
    ...fields,
  };
}

function textOf(value: HistoryRecord): string {
  return renderToStaticMarkup(createElement(HistoryRecordCard, { record: value }))
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

describe("history record card", () => {
  it("shows a genesis record's members and that it opened the group, not 'Consumed'", () => {
    const text = textOf(
      record({ kind: "genesis", members: ["agent:alice", "agent:bob", "agent:carol"], disposition: "consumed" }),
    );
    expect(text).toMatch(/^#1 Genesis by agent:alice/);
    expect(text).toContain("Opens the group of agent:alice, agent:bob, agent:carol");
    expect(text).toContain("Group opened : the record every member co-signed to open the group");
    expect(text).not.toContain("Consumed");
  });

  it("shows no collective line for a plain message, which is a multicast", () => {
    const text = textOf(
      record({
        content: [
          { type: "text", text: "hello" },
          { type: "collective", op: "multicast" },
        ],
      }),
    );
    expect(text).toContain("hello");
    expect(text).not.toContain("Collective part");
  });

  it("shows a post's text and its collective part in words", () => {
    const text = textOf(
      record({
        seq: 7,
        author: "agent:bob",
        disposition: "own",
        content: [
          { type: "text", text: "friday works" },
          { type: "collective", op: "answer", id: ID, response: { action: "accept", content: { day: "friday" } } },
        ],
      }),
    );
    expect(text).toMatch(/^#7 Post by agent:bob/);
    expect(text).toContain("friday works");
    expect(text).toContain("Collective part: answer: accept (col_AAAAAAAA…) — day: friday");
    expect(text).toContain("Own : posted by this agent");
  });
});

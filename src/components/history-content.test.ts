import { describe, expect, it } from "vitest";
import { readHistoryContent, shortId, summarizeCollectivePart } from "./history-content";

const ID = "col_" + "A".repeat(43);
const REC = "rec_" + "B".repeat(43);

describe("history content", () => {
  it("shortens an identifier to twelve characters", () => {
    expect(shortId(ID)).toBe("col_AAAAAAAA…");
    expect(shortId("col_short")).toBe("col_short");
    expect(shortId(undefined)).toBe("unknown id");
  });

  it("summarises each collective operation", () => {
    expect(summarizeCollectivePart({ type: "collective", op: "multicast" })).toBe("multicast");
    expect(
      summarizeCollectivePart({
        type: "collective",
        op: "gather",
        id: ID,
        nonce: "n",
        deadlineAt: 1,
        requestedSchema: {},
      }),
    ).toBe("gather request (col_AAAAAAAA…)");
    expect(summarizeCollectivePart({ type: "collective", op: "all_gather", id: ID })).toBe(
      "all_gather request (col_AAAAAAAA…)",
    );
    expect(
      summarizeCollectivePart({
        type: "collective",
        op: "answer",
        id: ID,
        response: { action: "accept", content: { day: "friday", also: ["sat", "sun"], people: 3 } },
      }),
    ).toBe("answer: accept (col_AAAAAAAA…) — day: friday; also: sat, sun; people: 3");
    expect(summarizeCollectivePart({ type: "collective", op: "answer", id: ID, response: { action: "decline" } })).toBe(
      "answer: decline (col_AAAAAAAA…)",
    );
    expect(
      summarizeCollectivePart({
        type: "collective",
        op: "close",
        id: ID,
        answers: [
          { member: "bob", answer: REC },
          { member: "carol", answer: null },
          { member: "dave", answer: REC },
        ],
      }),
    ).toBe("close (col_AAAAAAAA…): 2 of 3 answers counted");
  });

  it("names an operation it does not know instead of guessing", () => {
    expect(summarizeCollectivePart({ type: "collective", op: "vote" })).toBe('collective part ("vote")');
    expect(summarizeCollectivePart({ type: "collective" })).toBe("collective part");
  });

  it("keeps text and data parts in order and summarises the collective part", () => {
    const read = readHistoryContent([
      { type: "text", text: "hello" },
      { type: "data", value: { count: 2 } },
      { type: "collective", op: "multicast" },
    ]);
    expect(read).toEqual({
      parts: [
        { type: "text", text: "hello" },
        { type: "data", value: { count: 2 } },
      ],
      collective: "multicast",
    });
  });

  it("shows an unrecognised part whole rather than dropping it", () => {
    expect(readHistoryContent([{ type: "image", url: "x" }])).toEqual({
      parts: [{ type: "data", value: { type: "image", url: "x" } }],
      collective: undefined,
    });
  });
});

import { describe, expect, it } from "vitest";
import { payloadOf } from "./queue.store.js";

const item = {
  kind: "multicast",
  message: { kind: "direct", postId: "pst_x", address: "agent:alice", sender: "agent:alice", content: [] },
};

describe("payloadOf, the queued row's one mapper", () => {
  it("reads a queued item back as it was queued", () => {
    expect(payloadOf({ payload: JSON.stringify({ kind: "item", item }) })).toEqual({ kind: "item", item });
  });

  it("refuses a payload that fails its schema instead of casting it", () => {
    expect(() => payloadOf({ payload: JSON.stringify({ kind: "item", item: { kind: "bogus" } }) })).toThrow();
    expect(() => payloadOf({ payload: JSON.stringify({ kind: "answer", answer: { id: 1 } }) })).toThrow();
  });
});

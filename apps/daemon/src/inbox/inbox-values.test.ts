import { describe, expect, it } from "vitest";
import { inboxValuesOf } from "./inbox.store.js";

describe("the inbox row mapper", () => {
  it("refuses a stored item that fails the item schema instead of casting it", () => {
    expect(() => inboxValuesOf({ item: JSON.stringify({ kind: "message", id: 7 }), guidance: null })).toThrow();
    expect(() => inboxValuesOf({ item: JSON.stringify({ kind: "no-such-kind" }), guidance: null })).toThrow();
  });
});

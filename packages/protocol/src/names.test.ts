import { describe, expect, it } from "vitest";
import { conversationOf, membersOfGroupAddress, parseMessageAddress } from "./names.js";

const names = (n: number) => Array.from({ length: n }, (_, i) => `agent${String(i).padStart(2, "0")}`);

describe("parseMessageAddress", () => {
  it("accepts an agent address naming another agent", () => {
    expect(parseMessageAddress("agent:bob", "alice")).toEqual({
      ok: true,
      address: { kind: "agent", address: "agent:bob", name: "bob" },
    });
  });

  it("refuses an agent address naming the local agent", () => {
    expect(parseMessageAddress("agent:alice", "alice")).toMatchObject({ ok: false, reason: "invalid-address" });
  });

  it.each([
    "agent:Bob",
    "agent:b",
    "agent:-bob",
    "agent:bob-",
    "agent:bob smith",
    "agent:",
    "bob",
    "room:bob,carol",
    "agent:" + "a".repeat(33),
  ])("refuses the malformed address %s", (input) => {
    expect(parseMessageAddress(input, "alice")).toMatchObject({ ok: false, reason: "invalid-address" });
  });

  it("accepts names of 3 and 32 characters", () => {
    expect(parseMessageAddress(`agent:abc`, "alice").ok).toBe(true);
    expect(parseMessageAddress(`agent:${"a".repeat(32)}`, "alice").ok).toBe(true);
  });

  it("sorts group members by byte order and inserts the local agent", () => {
    const result = parseMessageAddress("group:carol,bob", "alice");
    expect(result).toEqual({
      ok: true,
      address: { kind: "group", address: "group:alice,bob,carol", members: ["alice", "bob", "carol"] },
    });
  });

  it("gives the same canonical group whatever the order and whether the local agent is listed", () => {
    const a = parseMessageAddress("group:carol,alice,bob", "alice");
    const b = parseMessageAddress("group:bob,carol", "alice");
    expect(a).toEqual(b);
  });

  it("orders digits and separators by byte value", () => {
    const result = parseMessageAddress("group:b_x,b-x,b0x", "a1b");
    expect(result.ok && result.address.address).toBe("group:a1b,b-x,b0x,b_x");
  });

  it("refuses duplicates, including the local agent twice", () => {
    expect(parseMessageAddress("group:bob,bob,carol", "alice")).toMatchObject({ ok: false, reason: "invalid-address" });
    expect(parseMessageAddress("group:alice,alice,bob", "alice")).toMatchObject({
      ok: false,
      reason: "invalid-address",
    });
  });

  it("refuses empty entries", () => {
    for (const input of ["group:", "group:bob,,carol", "group:bob,carol,", "group:,bob,carol"]) {
      expect(parseMessageAddress(input, "alice")).toMatchObject({ ok: false, reason: "invalid-address" });
    }
  });

  it("refuses a group of 2 and accepts a group of 3 members including the local agent", () => {
    expect(parseMessageAddress("group:bob", "alice")).toMatchObject({ ok: false, reason: "membership-invalid" });
    expect(parseMessageAddress("group:alice,bob", "alice")).toMatchObject({ ok: false, reason: "membership-invalid" });
    expect(parseMessageAddress("group:bob,carol", "alice").ok).toBe(true);
  });

  it("accepts 32 members and refuses 33", () => {
    const self = "zzz";
    expect(parseMessageAddress(`group:${names(31).join(",")}`, self).ok).toBe(true);
    expect(parseMessageAddress(`group:${names(32).join(",")}`, self)).toMatchObject({
      ok: false,
      reason: "membership-invalid",
    });
    expect(parseMessageAddress(`group:${[...names(31), self].join(",")}`, self).ok).toBe(true);
  });

  it("leaves unknown names to resolution", () => {
    expect(parseMessageAddress("agent:nobody-here", "alice").ok).toBe(true);
  });
});

describe("conversation keys", () => {
  it("names a direct conversation by its two sorted members", () => {
    const result = parseMessageAddress("agent:alice", "bob");
    expect(result.ok && conversationOf("bob", result.address)).toBe("direct:alice,bob");
  });

  it("reads the members back only from a canonical group address", () => {
    expect(membersOfGroupAddress("group:alice,bob,carol")).toEqual(["alice", "bob", "carol"]);
    expect(membersOfGroupAddress("group:bob,alice,carol")).toBeUndefined();
    expect(membersOfGroupAddress("group:alice,alice,bob")).toBeUndefined();
  });

  it("reads a group address once: later reads return the same frozen members, and a malformed one stays malformed", () => {
    const first = membersOfGroupAddress("group:dave,erin,frank");
    expect(first).toEqual(["dave", "erin", "frank"]);
    expect(Object.isFrozen(first)).toBe(true);
    expect(membersOfGroupAddress("group:dave,erin,frank")).toBe(first);
    for (let i = 0; i < 2; i++) expect(membersOfGroupAddress("group:erin,dave,frank")).toBeUndefined();
  });
});

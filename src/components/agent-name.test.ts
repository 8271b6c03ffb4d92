import { describe, expect, it } from "vitest";
import { readAgentName } from "./agent-name";

describe("readAgentName", () => {
  it("accepts 3 to 32 of a-z 0-9 _ -, trimmed, with or without agent:", () => {
    expect(readAgentName("bob")).toEqual({ ok: true, name: "bob" });
    expect(readAgentName("  carol_2  ")).toEqual({ ok: true, name: "carol_2" });
    expect(readAgentName("agent:dave-x")).toEqual({ ok: true, name: "dave-x" });
    expect(readAgentName("a".repeat(32))).toEqual({ ok: true, name: "a".repeat(32) });
  });

  it("refuses empty, short, long and other characters, saying why", () => {
    expect(readAgentName("  ")).toEqual({ ok: false, reason: "Enter an agent name." });
    expect(readAgentName("ab")).toEqual({ ok: false, reason: "An agent name has 3 to 32 characters." });
    expect(readAgentName("a".repeat(33))).toEqual({ ok: false, reason: "An agent name has 3 to 32 characters." });
    expect(readAgentName("Alice")).toEqual({ ok: false, reason: "An agent name uses only a-z, 0-9, _ and -." });
    expect(readAgentName("al ice")).toEqual({ ok: false, reason: "An agent name uses only a-z, 0-9, _ and -." });
  });
});

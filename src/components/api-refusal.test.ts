import { describe, expect, it } from "vitest";
import { describeRefusal } from "./api-refusal";

describe("describeRefusal", () => {
  it("reads a refused input's zod issues with their fields", () => {
    const message = JSON.stringify(
      [{ code: "custom", path: ["name"], message: "must be an agent name (3-32 of a-z 0-9 _ -)" }],
      null,
      2,
    );
    expect(describeRefusal(message)).toBe("name: must be an agent name (3-32 of a-z 0-9 _ -)");
  });

  it("joins several issues and keeps an issue without a path as it is", () => {
    const message = JSON.stringify([
      { code: "too_small", path: ["limit"], message: "too small" },
      { code: "custom", path: [], message: "bad input" },
    ]);
    expect(describeRefusal(message)).toBe("limit: too small; bad input");
  });

  it("returns any other message unchanged", () => {
    expect(describeRefusal('daemon "dave" is unreachable')).toBe('daemon "dave" is unreachable');
    expect(describeRefusal("[1, 2]")).toBe("[1, 2]");
    expect(describeRefusal("[]")).toBe("[]");
    expect(describeRefusal('{"message":"x"}')).toBe('{"message":"x"}');
  });
});

import { Either } from "effect";
import { describe, expect, it } from "vitest";
import { MessageTextError } from "./errors.js";
import { parseMessageText } from "./message-text.js";

const form = { type: "object", properties: { eta: { type: "integer" } }, required: ["eta"] } as const;

describe("parseMessageText", () => {
  it("reads plain text as a multicast", () => {
    expect(parseMessageText("agent:bob", "hello")).toEqual(Either.right({ to: "agent:bob", text: "hello" }));
  });

  it("reads JSON-looking prose as a multicast", () => {
    for (const text of ['{"hello": "world"}', "{not json}", "[1, 2]", "{}"]) {
      expect(parseMessageText("group:bob,carol", text)).toEqual(Either.right({ to: "group:bob,carol", text }));
    }
  });

  it("reads a gather and an all_gather", () => {
    expect(
      parseMessageText("agent:bob", JSON.stringify({ gather: "ETA?", deadline: 60, requestedSchema: form })),
    ).toEqual(
      Either.right({
        to: "agent:bob",
        text: "ETA?",
        collective: { op: "gather", deadline: 60, requestedSchema: form },
      }),
    );
    expect(
      parseMessageText("group:bob,carol", JSON.stringify({ all_gather: "ETA?", deadline: 5, requestedSchema: form })),
    ).toEqual(
      Either.right({
        to: "group:bob,carol",
        text: "ETA?",
        collective: { op: "all_gather", deadline: 5, requestedSchema: form },
      }),
    );
  });

  it("reads accept and decline answers", () => {
    expect(parseMessageText("agent:bob", '{"action":"accept","content":{"eta":5}}')).toEqual(
      Either.right({ to: "agent:bob", collectiveResponse: { action: "accept", content: { eta: 5 } } }),
    );
    expect(parseMessageText("agent:bob", '{"action":"decline"}')).toEqual(
      Either.right({ to: "agent:bob", collectiveResponse: { action: "decline" } }),
    );
  });

  it("refuses a malformed operation with a MessageTextError naming each failing field", () => {
    const parsed = parseMessageText("agent:bob", JSON.stringify({ gather: "", deadline: 0, requestedSchema: form }));
    const error = Either.getOrThrow(Either.flip(parsed));
    expect(error).toBeInstanceOf(MessageTextError);
    expect(error._tag).toBe("MessageTextError");
    expect(error.fields.map((f) => f.field).sort()).toEqual(["deadline", "gather"]);
    expect(error.message).toContain("deadline");
  });
});

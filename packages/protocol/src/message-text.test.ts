import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readMessageText, writeMessageText, type SendInput } from "./message-text.js";

const form = { type: "object", properties: { eta: { type: "integer" } }, required: ["eta"] };

describe("readMessageText", () => {
  it("sends plain text as a multicast", () => {
    expect(readMessageText("agent:bob", "hello there")).toEqual({
      ok: true,
      input: { to: "agent:bob", text: "hello there" },
    });
  });

  it("sends JSON-looking prose as a multicast", () => {
    for (const text of ['{"hello": "world"}', "{not json}", "[1,2]", '{"gatherer": 1}', "{}"]) {
      expect(readMessageText("agent:bob", text)).toEqual({ ok: true, input: { to: "agent:bob", text } });
    }
  });

  it("reads a gather and an all_gather", () => {
    const gather = readMessageText(
      "agent:bob",
      JSON.stringify({ gather: "ETA?", deadline: 60, requestedSchema: form }),
    );
    expect(gather).toEqual({
      ok: true,
      input: { to: "agent:bob", text: "ETA?", collective: { op: "gather", deadline: 60, requestedSchema: form } },
    });
    const all = readMessageText(
      "group:bob,carol",
      ` ${JSON.stringify({ all_gather: "ETA?", deadline: 1, requestedSchema: form })}\n`,
    );
    expect(all.ok && "collective" in all.input && all.input.collective?.op).toBe("all_gather");
  });

  it("reads accept and decline answers", () => {
    expect(readMessageText("agent:bob", '{"action":"accept","content":{"eta":5,"tags":["a"]}}')).toEqual({
      ok: true,
      input: { to: "agent:bob", collectiveResponse: { action: "accept", content: { eta: 5, tags: ["a"] } } },
    });
    expect(readMessageText("agent:bob", '{"action":"decline"}')).toEqual({
      ok: true,
      input: { to: "agent:bob", collectiveResponse: { action: "decline" } },
    });
  });

  it("refuses a malformed operation naming each failing field", () => {
    const read = readMessageText(
      "agent:bob",
      JSON.stringify({
        gather: "",
        deadline: 0,
        requestedSchema: { type: "object", properties: { a: { type: "object" } } },
        extra: 1,
      }),
    );
    expect(read.ok).toBe(false);
    expect(!read.ok && read.fields.map((f) => f.field).sort()).toEqual([
      "deadline",
      "extra",
      "gather",
      "requestedSchema.properties.a.type",
    ]);
    expect(!read.ok && read.message).toContain("deadline");
  });

  it.each([
    ['{"action":"maybe"}', ["action"]],
    ['{"action":"decline","why":"busy"}', ["why"]],
    ['{"action":"accept"}', ["content"]],
    ['{"action":"accept","content":{"a":{"b":1}}}', ["content.a"]],
    ['{"gather":"q","action":"decline"}', ["gather", "action"]],
    ['{"gather":"q","deadline":2592001,"requestedSchema":{"type":"object","properties":{}}}', ["deadline"]],
  ])("refuses %s", (text, fields) => {
    const read = readMessageText("agent:bob", text);
    expect(!read.ok && read.fields.map((f) => f.field)).toEqual(fields);
  });

  it("never throws and always returns a value", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        (text) => {
          const read = readMessageText("agent:bob", text);
          if (!read.ok) expect(read.fields.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("writeMessageText", () => {
  it("writes inputs that read back unchanged", () => {
    const inputs: SendInput[] = [
      { to: "agent:bob", text: "hi" },
      {
        to: "agent:bob",
        text: "ETA?",
        collective: { op: "gather", deadline: 30, requestedSchema: { type: "object", properties: {} } },
      },
      { to: "agent:bob", collectiveResponse: { action: "accept", content: { eta: 3 } } },
      { to: "agent:bob", collectiveResponse: { action: "decline" } },
    ];
    for (const input of inputs) {
      const text = writeMessageText(input);
      expect(text).toBeDefined();
      expect(readMessageText(input.to, text!)).toEqual({ ok: true, input });
    }
  });

  it("has no text for a multicast that would read as an operation", () => {
    expect(writeMessageText({ to: "agent:bob", text: '{"action":"decline"}' })).toBeUndefined();
  });
});

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

  it("reads each operation-shaped object as that one operation, or refuses it naming only its own fields", () => {
    const form = fc.constantFrom(
      { type: "object", properties: {} },
      { type: "object", properties: { eta: { type: "integer" } }, required: ["eta"] },
    );
    const answerValue = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.array(fc.string()));
    const fields = {
      gather: fc.oneof(fc.string(), fc.jsonValue()),
      all_gather: fc.oneof(fc.string(), fc.jsonValue()),
      action: fc.oneof(fc.constantFrom("accept", "decline"), fc.jsonValue()),
      deadline: fc.oneof(fc.integer({ min: 1, max: 2_592_000 }), fc.integer(), fc.jsonValue()),
      requestedSchema: fc.oneof(form, fc.jsonValue()),
      content: fc.oneof(fc.dictionary(fc.string(), answerValue), fc.jsonValue()),
      note: fc.jsonValue(),
    };
    const OPERATIONS = ["gather", "all_gather", "action"];
    const REQUIRED: Record<string, string[]> = {
      gather: ["gather", "deadline", "requestedSchema"],
      all_gather: ["all_gather", "deadline", "requestedSchema"],
      action: ["action", "content"],
    };
    const question = fc.string({ minLength: 1 }).filter((q) => q.trim() !== "");
    const deadline = fc.integer({ min: 1, max: 2_592_000 });
    const wellFormed = fc.oneof(
      fc.record({ gather: question, deadline, requestedSchema: form }),
      fc.record({ all_gather: question, deadline, requestedSchema: form }),
      fc.constant({ action: "decline" }),
      fc.record({ action: fc.constant("accept"), content: fc.dictionary(fc.string(), answerValue) }),
    );
    const anything = fc.record(fields, { requiredKeys: [] });
    const objects = fc.oneof(
      anything,
      wellFormed,
      fc.tuple(wellFormed, anything).map(([operation, extra]) => ({ ...operation, ...extra })),
    );
    fc.assert(
      fc.property(objects, fc.constantFrom("", " ", "\n"), (value: Record<string, unknown>, pad) => {
        const text = `${pad}${JSON.stringify(value)}${pad}`;
        const read = readMessageText("agent:bob", text);
        const named = OPERATIONS.filter((op) => op in value);
        if (named.length === 0) {
          expect(read).toEqual({ ok: true, input: { to: "agent:bob", text } });
          return;
        }
        if (!read.ok) {
          // Each failing field is one the object carries, or one its operation requires.
          const roots = new Set([...Object.keys(value), ...named.flatMap((op) => REQUIRED[op]!)]);
          expect(read.fields.length).toBeGreaterThan(0);
          for (const { field } of read.fields) {
            expect(roots).toContain(field.split(".")[0]);
            expect(read.message).toContain(field);
          }
          return;
        }
        expect(named).toHaveLength(1);
        expect("collectiveResponse" in read.input || read.input.collective !== undefined).toBe(true);
        const written = writeMessageText(read.input);
        expect(written).toBeDefined();
        expect(readMessageText("agent:bob", written!)).toEqual(read);
      }),
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

import { describe, expect, it } from "vitest";
import { checkAnswerContent, checkRequestedSchema, type RequestedSchema } from "./form.js";

const schema: RequestedSchema = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1, maxLength: 10 },
    email: { type: "string", format: "email" },
    count: { type: "integer", minimum: 0, maximum: 5 },
    ratio: { type: "number" },
    ok: { type: "boolean", default: true },
    color: { type: "string", enum: ["red", "green"] },
    size: {
      type: "string",
      oneOf: [
        { const: "s", title: "Small" },
        { const: "l", title: "Large" },
      ],
    },
    tags: { type: "array", items: { type: "string", enum: ["a", "b", "c"] }, maxItems: 2 },
    picks: { type: "array", items: { anyOf: [{ const: "x", title: "X" }] } },
    legacy: { type: "string", enum: ["p", "q"], enumNames: ["P", "Q"] },
  },
  required: ["name"],
};

describe("checkRequestedSchema", () => {
  it("accepts every form-mode property kind", () => {
    expect(checkRequestedSchema(schema)).toEqual({ ok: true });
  });

  it.each([
    [{ type: "object", properties: { a: { type: "object" } } }, "requestedSchema.properties.a.type"],
    [
      { type: "object", properties: { a: { type: "array", items: { type: "number" } } } },
      "requestedSchema.properties.a.items.type",
    ],
    [{ type: "object", properties: { a: { type: "string", pattern: "x" } } }, "requestedSchema.properties.a.pattern"],
    [{ type: "object", properties: { a: { type: "string", format: "ipv4" } } }, "requestedSchema.properties.a.format"],
    [{ type: "object", properties: { a: { type: "string", enum: [] } } }, "requestedSchema.properties.a.enum"],
    [{ type: "object", properties: {}, required: ["b"] }, "requestedSchema.required"],
    [{ type: "object", properties: {}, required: ["toString"] }, "requestedSchema.required"],
    [{ type: "array", properties: {} }, "requestedSchema.type"],
    [{ type: "object", properties: {}, additionalProperties: false }, "requestedSchema.additionalProperties"],
    [
      { type: "object", properties: { n: { type: "integer", minimum: 5, maximum: 1 } } },
      "requestedSchema.properties.n.minimum",
    ],
  ])("refuses %j naming %s", (input, field) => {
    expect(checkRequestedSchema(input)).toMatchObject({ ok: false, field });
  });
});

describe("checkAnswerContent", () => {
  it("accepts a valid answer", () => {
    expect(
      checkAnswerContent(schema, {
        name: "Ann",
        email: "a@b.co",
        count: 2,
        color: "red",
        size: "l",
        tags: ["a", "b"],
        picks: ["x"],
      }),
    ).toEqual({ ok: true });
  });

  it.each([
    [{}, "name"],
    [{ name: "" }, "name"],
    [{ name: "Ann", extra: 1 }, "extra"],
    [{ name: "Ann", constructor: "x" }, "constructor"],
    [{ name: "Ann", count: 1.5 }, "count"],
    [{ name: "Ann", count: 6 }, "count"],
    [{ name: "Ann", email: "nope" }, "email"],
    [{ name: "Ann", color: "blue" }, "color"],
    [{ name: "Ann", tags: ["a", "b", "c"] }, "tags"],
    [{ name: "Ann", tags: ["z"] }, "tags"],
    [{ name: "Ann", ok: "yes" }, "ok"],
  ])("refuses %j naming %s", (content, field) => {
    expect(checkAnswerContent(schema, content)).toMatchObject({ ok: false, field });
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { locateJson } from "./json-locate";

describe("locateJson", () => {
  it("places every member at its name and every element at its value", () => {
    const text = [
      "{",
      '  "mode": "enforce",',
      '  "middlewares": [',
      '    { "id": "house", "rules": [] }',
      "  ]",
      "}",
    ].join("\n");
    const located = locateJson(text);
    expect(located.ok).toBe(true);
    if (!located.ok) return;
    expect(located.fields.get("")).toEqual({ line: 1, column: 1 });
    expect(located.fields.get("mode")).toEqual({ line: 2, column: 3 });
    expect(located.fields.get("middlewares")).toEqual({ line: 3, column: 3 });
    expect(located.fields.get("middlewares.0")).toEqual({ line: 4, column: 5 });
    expect(located.fields.get("middlewares.0.id")).toEqual({ line: 4, column: 7 });
    expect(located.fields.get("middlewares.0.rules")).toEqual({ line: 4, column: 22 });
  });

  it("names the line and column where a text stops being JSON", () => {
    expect(locateJson('{\n  "mode": "off",\n}')).toEqual({
      ok: false,
      message: "expected a member name in double quotes",
      at: { line: 3, column: 1 },
    });
    expect(locateJson('{"a": tru}')).toMatchObject({ ok: false, message: "expected a value", at: { column: 7 } });
    expect(locateJson('{"a": "x\ny"}')).toMatchObject({ ok: false, at: { line: 1, column: 9 } });
    expect(locateJson('{"a": "x')).toMatchObject({ ok: false, message: "a string is not closed", at: { column: 7 } });
    expect(locateJson('{"a": 1} 2')).toMatchObject({ ok: false, at: { column: 10 } });
    expect(locateJson('"\\q"')).toMatchObject({ ok: false, message: "unknown escape in a string" });
    expect(locateJson("")).toMatchObject({ ok: false, message: "the document ends where a value was expected" });
    expect(locateJson("01")).toMatchObject({ ok: false });
  });

  it("accepts exactly what JSON.parse accepts", () => {
    const accepts = (text: string) => {
      try {
        JSON.parse(text);
        return true;
      } catch {
        return false;
      }
    };
    fc.assert(
      fc.property(fc.json(), (text) => locateJson(text).ok === true),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(
        fc.json(),
        fc.nat(),
        fc.constantFrom("", ",", "}", "]", '"', ":", "x", "\\", "\n"),
        (text, at, junk) => {
          const cut = at % (text.length + 1);
          const broken = text.slice(0, cut) + junk + text.slice(cut);
          return locateJson(broken).ok === accepts(broken);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("reads keys with escapes by their value", () => {
    const located = locateJson('{"a\\u0062": {"c\\"d": [0, {"e": 1}]}}');
    expect(located.ok && [...located.fields.keys()].sort()).toEqual([
      "",
      "ab",
      'ab.c"d',
      'ab.c"d.0',
      'ab.c"d.1',
      'ab.c"d.1.e',
    ]);
  });
});

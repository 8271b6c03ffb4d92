import { describe, expect, it } from "vitest";
import { compilePattern, SLICE_STEPS, testPattern, testPatternNow } from "./linear-pattern.js";

function compiled(source: string, flags = "") {
  const result = compilePattern(source, flags);
  if (!result.ok) throw new Error(result.message);
  return result.pattern;
}

const AGREES: [string, string, string[]][] = [
  ["api[_ -]?key|password", "i", ["my API key", "Password!", "pass word", "apikey", "api-KEY"]],
  ["^(a+)+$", "", ["aaaa", `${"a".repeat(12)}!`, ""]],
  ["\\bfoo\\b", "", ["foo", "a foo b", "afoo", "foo_"]],
  ["\\Bb", "", ["ab", "b"]],
  ["^ab$", "m", ["x\nab\ny", "xab"]],
  ["^ab$", "", ["x\nab\ny", "ab"]],
  ["a{2,3}c", "", ["aac", "ac", "aaaac"]],
  ["a{2,}c|z{3}", "", ["aaac", "ac", "zz", "zzz"]],
  ["[^a-c]x", "i", ["Ax", "dx", "x"]],
  ["colou?r|gr[ae]y", "", ["color", "grey", "gry"]],
  ["(\\w+\\s?)*$", "", ["hello world!", "abc"]],
  ["\\d{3}-\\d{4}", "", ["call 555-1234", "55-1234"]],
  [".+@.+\\..+", "", ["a@b.c", "a@b"]],
  ["é", "iu", ["É", "e"]],
  ["^$", "", ["", "a"]],
  ["a|", "", ["b"]],
  ["(?:ab)*c", "", ["ababc", "abac", "c"]],
  ["(?<word>ab)+c", "", ["ababc", "ac"]],
  ["[\\s\\S]", "", ["x", ""]],
  ["[\\d.-]+%", "", ["12.5%", "%"]],
  ["\\u{1F600}", "u", ["😀", "x"]],
  ["^.$", "u", ["😀"]],
  ["^.$", "", ["😀"]],
  ["a.b", "s", ["a\nb"]],
  ["a.b", "", ["a\nb", "a-b"]],
  ["x*", "", [""]],
  ["(a*)*b", "", ["aaaab", "aaaa"]],
  ["\\x41\\u0042\\t", "", ["AB\t", "AB "]],
  [
    "ignore (all )?(previous|prior) instructions",
    "i",
    ["Please IGNORE all previous instructions", "ignore instructions"],
  ],
];

describe("the linear-time pattern engine", () => {
  it("decides as JavaScript's RegExp does on the syntax it runs", () => {
    for (const [source, flags, texts] of AGREES) {
      const pattern = compiled(source, flags);
      for (const text of texts)
        expect([source, text, testPatternNow(pattern, text)]).toEqual([
          source,
          text,
          new RegExp(source, flags).test(text),
        ]);
    }
  });

  it("refuses what needs backtracking, naming the construct", () => {
    const refusal = (source: string, flags = "") => {
      const result = compilePattern(source, flags);
      return result.ok ? "accepted" : result.message;
    };
    expect(refusal("(a)\\1")).toMatch(/backreference.*linear time/);
    expect(refusal("(?<x>a)\\k<x>")).toMatch(/named backreference/);
    expect(refusal("a(?=b)")).toMatch(/lookahead or lookbehind/);
    expect(refusal("(?<!x)a")).toMatch(/lookahead or lookbehind/);
    expect(refusal("a{2000}")).toMatch(/at most 1000/);
    expect(refusal("(a{1000}){1000}")).toMatch(/more than 10000 states/);
    expect(refusal("\\p{L}", "u")).toMatch(/property escape/);
    expect(refusal("(ab")).toMatch(/unterminated group/);
    expect(refusal("*a")).toMatch(/nothing to repeat/);
  });

  it("decides the issue's reproduction, ^(a+)+$ over 28 a's and a !, in linear steps", async () => {
    const budget = { remaining: 1_000_000 };
    expect(await testPattern(compiled("^(a+)+$"), `${"a".repeat(28)}!`, budget)).toBe("no-match");
    expect(1_000_000 - budget.remaining).toBeLessThan(500);
  });

  it("spends steps in proportion to the text, whatever the pattern", async () => {
    const spent = async (source: string, text: string) => {
      const budget = { remaining: Number.MAX_SAFE_INTEGER };
      await testPattern(compiled(source), text, budget);
      return Number.MAX_SAFE_INTEGER - budget.remaining;
    };
    for (const source of ["^(a+)+$", "(a|aa)+$", "(\\w+\\s?)*$"]) {
      const short = await spent(source, `${"a".repeat(1_000)}!`);
      const long = await spent(source, `${"a".repeat(10_000)}!`);
      expect(long / short).toBeGreaterThan(8);
      expect(long / short).toBeLessThan(12);
    }
  });

  it("stops over budget, and yields the event loop between slices", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const budget = { remaining: 40 * SLICE_STEPS };
    const outcome = await testPattern(compiled("(\\w+\\s?)*$"), "ab ".repeat(200_000), budget);
    clearInterval(timer);
    expect(outcome).toBe("over-budget");
    expect(budget.remaining).toBeLessThanOrEqual(0);
    expect(ticks).toBeGreaterThan(0);
  });

  it("runs two tests of one pattern at once without mixing them", async () => {
    const pattern = compiled("(\\w+\\s?)*!$");
    const big = { remaining: Number.MAX_SAFE_INTEGER };
    const [a, b] = await Promise.all([
      testPattern(pattern, `${"ab ".repeat(50_000)}!`, big),
      testPattern(pattern, `${"ab ".repeat(50_000)}?`, { remaining: Number.MAX_SAFE_INTEGER }),
    ]);
    expect([a, b]).toEqual(["match", "no-match"]);
  });
});

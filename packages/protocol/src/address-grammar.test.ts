/**
 * Address fuzzing against the grammar (SPEC §4, issue 13): for any text and any local agent,
 * parseMessageAddress agrees with an independent reading of the grammar (a regular expression
 * per form, then set arithmetic), on acceptance, the canonical address and the refusal reason.
 * Through a real daemon, fuzzed addresses are sent in apps/daemon/test/conformance/fuzz.test.ts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseMessageAddress } from "./names.js";

const NAME = "[a-z0-9][a-z0-9_-]{1,30}[a-z0-9]";
const AGENT_FORM = new RegExp(`^agent:(${NAME})$`);
const GROUP_FORM = new RegExp(`^group:${NAME}(?:,${NAME})*$`);

type Reading = { ok: true; address: string } | { ok: false; reason: "invalid-address" | "membership-invalid" };

/** The grammar read straight from SPEC §4, independently of the implementation. */
function readByGrammar(input: string, self: string): Reading {
  const agent = AGENT_FORM.exec(input);
  if (agent !== null)
    return agent[1] === self ? { ok: false, reason: "invalid-address" } : { ok: true, address: input };
  if (!GROUP_FORM.test(input)) return { ok: false, reason: "invalid-address" };
  const listed = input.slice("group:".length).split(",");
  if (new Set(listed).size !== listed.length) return { ok: false, reason: "invalid-address" };
  const members = [...new Set([...listed, self])].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  if (members.length < 3 || members.length > 32) return { ok: false, reason: "membership-invalid" };
  return { ok: true, address: `group:${members.join(",")}` };
}

function readByParser(input: string, self: string): Reading {
  const parsed = parseMessageAddress(input, self);
  return parsed.ok ? { ok: true, address: parsed.address.address } : { ok: false, reason: parsed.reason };
}

const validName = fc.stringMatching(new RegExp(`^${NAME}$`));
/** Names that are almost right: case, length, edges, look-alikes, whitespace and separators. */
const nearName = fc.oneof(
  validName.map((n) => n.toUpperCase()),
  validName.map((n) => `${n}-`),
  validName.map((n) => `_${n}`),
  validName.map((n) => n.slice(0, 2)),
  fc.constantFrom("ab", "a", "", "a".repeat(33), "a".repeat(32), "abc\n", " abc", "abc ", "a\u0000b", "ａｂｃ", "abc,"),
  fc.string({ maxLength: 6 }),
  fc.string({ unit: "binary", maxLength: 6 }),
);
const pool = fc.array(validName, { minLength: 1, maxLength: 6 });
const name = (names: string[]) => fc.oneof({ arbitrary: fc.constantFrom(...names), weight: 6 }, nearName);
const prefix = fc.oneof(
  { arbitrary: fc.constantFrom("agent:", "group:"), weight: 8 },
  fc.constantFrom("Agent:", "GROUP:", "group: ", "agents:", "group", "agent", "", ":", "direct:"),
);
const separator = fc.oneof({ arbitrary: fc.constant(","), weight: 10 }, fc.constantFrom(", ", ",,", ";", " "));

/** An address built from a small pool of names, so groups hit duplicates, self and every size. */
const address = pool.chain((names) =>
  fc.record({
    self: fc.constantFrom(...names),
    input: fc
      .tuple(prefix, fc.array(name(names), { maxLength: 36 }), separator)
      .map(([p, members, sep]) => `${p}${members.join(sep)}`),
  }),
);
const largeGroup = fc.uniqueArray(validName, { minLength: 28, maxLength: 36 }).chain((names) =>
  fc.record({
    self: fc.constantFrom(...names),
    input: fc.subarray(names, { minLength: 1 }).map((members) => `group:${members.join(",")}`),
  }),
);

describe("parseMessageAddress against the grammar", () => {
  it("agrees with the grammar on near-miss addresses, group sizes 0 to 36 and the local agent", () => {
    fc.assert(
      fc.property(address, ({ input, self }) => {
        expect(readByParser(input, self)).toEqual(readByGrammar(input, self));
      }),
      { numRuns: 5_000 },
    );
  });

  it("agrees with the grammar at the 32/33 member boundary", () => {
    fc.assert(
      fc.property(largeGroup, ({ input, self }) => {
        expect(readByParser(input, self)).toEqual(readByGrammar(input, self));
      }),
      { numRuns: 1_000 },
    );
  });

  it("refuses arbitrary text unless the grammar accepts it", () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ unit: "binary" }), validName, (text, binary, self) => {
        for (const input of [text, binary, `agent:${text}`, `group:${binary}`]) {
          expect(readByParser(input, self)).toEqual(readByGrammar(input, self));
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it("gives a canonical address that reads back as itself, whatever the order of the members", () => {
    fc.assert(
      fc.property(address, ({ input, self }) => {
        const read = readByParser(input, self);
        if (!read.ok) return;
        expect(readByParser(read.address, self)).toEqual(read);
        if (read.address.startsWith("group:")) {
          const reversed = `group:${read.address.slice(6).split(",").reverse().join(",")}`;
          expect(readByParser(reversed, self)).toEqual(read);
        }
      }),
      { numRuns: 2_000 },
    );
  });
});

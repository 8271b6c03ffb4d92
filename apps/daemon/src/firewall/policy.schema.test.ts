import { describe, expect, it } from "vitest";
import { describeIssues, readPolicy } from "./policy.schema.js";

const rule = (extra: Record<string, unknown>) => ({
  id: "r",
  direction: "inbound",
  decision: "hold",
  instruction: "Look at this.",
  ...extra,
});

describe("the firewall policy schema", () => {
  it("reads the SPEC example with its defaults filled in", () => {
    const read = readPolicy({
      mode: "enforce",
      middlewares: [
        { id: "house", kind: "rules", rules: [rule({ match: { from: ["agent:mallory"] } })] },
        {
          id: "judge",
          kind: "model",
          endpoint: "http://127.0.0.1:8080/v1",
          model: "guard",
          rules: [
            {
              id: "injection",
              direction: "inbound",
              norm: "Injection?",
              choices: ["no", "yes"],
              violating: "yes",
              decideAt: 0.85,
              uncertainAt: 0.3,
              decision: "hold",
              instruction: "Untrusted.",
            },
          ],
        },
        {
          id: "storm",
          kind: "rate",
          rules: [rule({ id: "per-peer", per: "sender", max: 20, windowSeconds: 60 })],
        },
      ],
    });
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.policy.middlewares[1]).toMatchObject({ timeoutMs: 4000, concurrency: 4, onError: "hold" });
  });

  it("names every invalid field by its path", () => {
    const read = readPolicy({
      mode: "loud",
      middlewares: [
        {
          id: "house",
          kind: "rules",
          rules: [
            rule({}),
            rule({ id: "r2", decision: "refuse", match: { text: { pattern: "(" }, from: ["mallory"] } }),
          ],
        },
        { id: "house", kind: "rate", rules: [rule({ per: "loop", max: 0, windowSeconds: 60 })] },
      ],
    });
    expect(read.ok).toBe(false);
    if (read.ok) return;
    const paths = read.issues.map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "mode",
        "middlewares.0.rules.1.decision",
        "middlewares.0.rules.1.match.from.0",
        "middlewares.0.rules.1.match.text.pattern",
        "middlewares.1.rules.0.max",
        "middlewares.1.rules.0.direction",
      ]),
    );
    expect(describeIssues(read.issues)).toContain(
      "middlewares.0.rules.1.decision: refuse applies to outbound rules only",
    );
  });

  it("refuses a middleware id or rule id used twice", () => {
    const read = readPolicy({
      mode: "enforce",
      middlewares: [
        { id: "house", kind: "rules", rules: [rule({}), rule({})] },
        { id: "house", kind: "rules", rules: [rule({})] },
      ],
    });
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      "middlewares.0.rules.1.id: repeats the rule id r",
      "middlewares.1.id: repeats the middleware id house",
    ]);
  });

  it("refuses unknown fields, a violating choice outside the choices, and thresholds out of order", () => {
    const read = readPolicy({
      mode: "enforce",
      middlewares: [
        {
          id: "judge",
          kind: "model",
          endpoint: "http://127.0.0.1:8080/v1/chat/completions",
          model: "guard",
          temperature: 1,
          rules: [
            {
              id: "j",
              direction: "inbound",
              norm: "?",
              choices: ["no", "yes"],
              violating: "maybe",
              decideAt: 0.3,
              uncertainAt: 0.8,
              decision: "hold",
              instruction: "x",
            },
          ],
        },
      ],
    });
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.issues.map((i) => i.path)).toEqual(
      expect.arrayContaining([
        "middlewares.0",
        "middlewares.0.endpoint",
        "middlewares.0.rules.0.violating",
        "middlewares.0.rules.0.uncertainAt",
      ]),
    );
  });

  it("refuses a pattern the linear-time engine cannot run, naming its field", () => {
    const read = readPolicy({
      mode: "enforce",
      middlewares: [
        {
          id: "house",
          kind: "rules",
          rules: [
            rule({ id: "a", match: { text: { pattern: "^(a+)+$" } } }),
            rule({ id: "b", match: { text: { pattern: "(\\w)\\1" } } }),
            rule({ id: "c", match: { text: { pattern: "pass(?!word)" } } }),
          ],
        },
      ],
    });
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.issues).toEqual([
      {
        path: "middlewares.0.rules.1.match.text.pattern",
        message: "uses a backreference (\\1), which cannot run in linear time",
      },
      {
        path: "middlewares.0.rules.2.match.text.pattern",
        message: "uses a lookahead or lookbehind ((?=, (?!, (?<=, (?<!), which cannot run in linear time",
      },
    ]);
  });

  it("stores a match.to group in canonical order, and refuses a malformed one naming the field", () => {
    const read = readPolicy({
      mode: "enforce",
      middlewares: [{ id: "house", kind: "rules", rules: [rule({ match: { to: ["group:zed,bob,amy", "group:*"] } })] }],
    });
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.policy.middlewares[0]?.rules[0]?.match.to).toEqual(["group:amy,bob,zed", "group:*"]);
    const bad = readPolicy({
      mode: "enforce",
      middlewares: [
        {
          id: "house",
          kind: "rules",
          rules: [rule({ match: { to: ["group:bob,zed", "group:bob,bob,amy", "group:Bob,amy,zed", "agent:x"] } })],
        },
      ],
    });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.issues.map((i) => i.path)).toEqual([
      "middlewares.0.rules.0.match.to.0",
      "middlewares.0.rules.0.match.to.1",
      "middlewares.0.rules.0.match.to.2",
      "middlewares.0.rules.0.match.to.3",
    ]);
    expect(bad.issues[0]?.message).toMatch(/lists every member, this agent included/);
  });
});

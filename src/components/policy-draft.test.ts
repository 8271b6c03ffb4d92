import { describe, expect, it } from "vitest";
import { formatPolicy, placeIssues, policyIssuesOf, readDraft } from "./policy-draft";

const POLICY = {
  mode: "enforce",
  middlewares: [
    {
      id: "house",
      kind: "rules",
      rules: [
        { id: "a", direction: "inbound", decision: "hold", instruction: "x" },
        { id: "b", direction: "inbound", decision: "refuse", instruction: "y" },
      ],
    },
  ],
};

describe("policy drafts", () => {
  it("places each refused field at its line, and a missing field at its parent's", () => {
    const text = formatPolicy(POLICY);
    const read = readDraft(text);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    const lines = text.split("\n");
    const decisionLine = lines.findIndex((line) => line.includes('"refuse"')) + 1;
    const secondRule = lines.findIndex((line) => line.includes('"id": "b"')) - 1 + 1;
    expect(
      placeIssues(read.fields, [
        { path: "middlewares.0.rules.1.decision", message: "refuse applies to outbound rules only" },
        { path: "middlewares.0.rules.1.expectation.x", message: "missing" },
        { path: "(policy)", message: "whole" },
        { path: "nowhere.0", message: "gone" },
      ]),
    ).toEqual([
      {
        path: "middlewares.0.rules.1.decision",
        message: "refuse applies to outbound rules only",
        line: decisionLine,
        column: 11,
        exact: true,
      },
      { path: "middlewares.0.rules.1.expectation.x", message: "missing", line: secondRule, column: 9, exact: false },
      { path: "(policy)", message: "whole", line: 1, column: 1, exact: true },
      { path: "nowhere.0", message: "gone", line: 1, column: 1, exact: false },
    ]);
  });

  it("names the line of a syntax error before anything is sent", () => {
    expect(readDraft('{\n  "mode": "off",\n}')).toEqual({
      ok: false,
      problem: {
        path: "(json)",
        message: "not JSON: expected a member name in double quotes (line 3, column 1)",
        line: 3,
        column: 1,
        exact: true,
      },
    });
  });

  it("reads the issues of a refused policy from a client error, and nothing from other errors", () => {
    const issues = [{ path: "mode", message: "Invalid option" }];
    expect(policyIssuesOf({ data: { code: "BAD_REQUEST", issues } })).toEqual(issues);
    expect(policyIssuesOf({ data: { code: "BAD_REQUEST" } })).toBeUndefined();
    expect(policyIssuesOf({ data: { issues: [{ path: 1 }] } })).toBeUndefined();
    expect(policyIssuesOf({ data: { issues: [] } })).toBeUndefined();
    expect(policyIssuesOf(null)).toBeUndefined();
    expect(policyIssuesOf({})).toBeUndefined();
  });
});

import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { MiddlewareVerdict } from "@/trpc/owner-api";
import { MiddlewareAudit } from "./firewall-audit";
import { formatLatency, formatProbability } from "./firewall-words";

function textOf(middlewares: MiddlewareVerdict[]): string {
  return renderToStaticMarkup(createElement(MiddlewareAudit, { middlewares }))
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

describe("middleware audit", () => {
  it("shows each middleware's decision, the rules that spoke and the latency", () => {
    const text = textOf([
      {
        middlewareId: "house",
        kind: "rules",
        decision: "hold",
        rules: [
          { ruleId: "money", decision: "hold", instruction: "x" },
          { ruleId: "team", decision: "allow", instruction: "y", expectation: "permitted" },
        ],
        latencyUs: 212,
      },
      {
        middlewareId: "judge",
        kind: "model",
        decision: "allow",
        rules: [{ ruleId: "injection", decision: "allow", instruction: "z", probability: 0.1 }],
        latencyUs: 52_310,
      },
    ]);
    expect(text).toBe(
      "house rules Hold money hold team allow (reply permitted) 212 µs judge model Allow injection allow (p(violating) 10%) 52.31 ms",
    );
  });

  it("shows a failed middleware as an error with the decision its onError made, never as a pass", () => {
    const text = textOf([
      {
        middlewareId: "judge",
        kind: "model",
        decision: "hold",
        rules: [],
        error: "injection: timed out",
        latencyUs: 4_000_100,
      },
    ]);
    expect(text).toBe("judge model Error · decided hold injection: timed out No rule matched. 4000 ms");
    expect(text).not.toContain("Allow");
  });

  it("formats latencies and probabilities", () => {
    expect([
      formatLatency(0),
      formatLatency(999.4),
      formatLatency(1000),
      formatLatency(99_999),
      formatLatency(100_000),
    ]).toEqual(["0 µs", "999 µs", "1.00 ms", "100.00 ms", "100 ms"]);
    expect(formatProbability(0.555)).toBe("56%");
  });
});

/**
 * The tail anatomy's attribution: each send's window is cut into steps between consecutive hops,
 * and the slowest sends are told apart by which step was the longest in each.
 */
import { describe, expect, it } from "vitest";
import { tailSteps } from "./anatomy.js";

const ms = (n: number) => BigInt(Math.round(n * 1e6));

/** Sends of 3 ms each (1 ms to alice's parse, 1 ms to the router's commit, 1 ms to the answer). */
function sends(count: number, slow: ReadonlyMap<number, "parse" | "commit">) {
  const hops = [];
  const windows = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    const parse = slow.get(i) === "parse" ? 9 : 1;
    const commit = slow.get(i) === "commit" ? 9 : 1;
    hops.push({ label: "alice", hop: "mcp.request-parsed", ns: ms(at + parse) });
    hops.push({ label: "router", hop: "router.writer-committed", ns: ms(at + parse + commit) });
    windows.push({ sent: ms(at), answered: ms(at + parse + commit + 1) });
    at += parse + commit + 1 + 0.5;
  }
  return { hops, windows };
}

describe("tailSteps", () => {
  it("names the step that was the longest in each of the slowest sends", () => {
    const slow = new Map<number, "parse" | "commit">([
      [10, "commit"],
      [20, "commit"],
      [30, "commit"],
      [40, "parse"],
      [50, "parse"],
    ]);
    const { hops, windows } = sends(200, slow);
    const tail = tailSteps(hops, windows);
    expect(tail.slowest).toBe(5);
    expect(tail.p50).toBeCloseTo(3, 6);
    const step = (hop: string) => tail.steps.find((s) => s.hop === hop);
    expect(step("router.writer-committed")).toMatchObject({ label: "router", all: 1, tail: 9, longest: 3 });
    expect(step("mcp.request-parsed")).toMatchObject({ label: "alice", all: 1, tail: 1, longest: 2 });
    expect(tail.steps[0]!.hop).toBe("router.writer-committed");
  });

  it("counts a hop once per window, and the answer's step from the last hop", () => {
    const hops = [
      { label: "bob", hop: "ingress.stored", ns: ms(1) },
      { label: "bob", hop: "ingress.stored", ns: ms(2) },
    ];
    const tail = tailSteps(hops, [{ sent: 0n, answered: ms(7) }]);
    expect(tail.steps.find((s) => s.hop === "ingress.stored")).toMatchObject({ all: 1, tail: 1 });
    expect(tail.steps.find((s) => s.hop === "answer read")).toMatchObject({ all: 5, tail: 5, longest: 1 });
  });
});

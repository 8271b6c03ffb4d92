import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./harness/mcp.js";
import { Network } from "./harness/network.js";
import { ownerClient } from "./harness/owner.js";

const MEMBERS = ["ann", "ben", "cat", "dan"] as const;
const GROUP = `group:${MEMBERS.join(",")}`;

describe("many concurrent senders in one group", () => {
  let net: Network;

  beforeAll(async () => {
    net = await Network.start(MEMBERS);
  });
  afterAll(() => net?.close());

  async function historyOf(name: string): Promise<string[]> {
    const owner = ownerClient(net.agent(name).daemon);
    const hashes: string[] = [];
    let after = 0;
    for (;;) {
      const page = await owner.history.records.query({ conversation: GROUP, after, limit: 200 });
      hashes.push(...page.records.map((r) => r.recordHash));
      if (page.nextCursor === undefined) return hashes;
      after = page.nextCursor;
    }
  }

  it("all succeed, and every member's history agrees on one total order", async () => {
    let expected = 1; // the genesis
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: MEMBERS.length, maxLength: MEMBERS.length }),
        async (counts) => {
          const sends = MEMBERS.flatMap((name, i) =>
            Array.from({ length: counts[i]! }, (_, k) => net.send(name, GROUP, `${name} #${k} of run ${expected}`)),
          );
          const results = await Promise.all(sends);
          expect(results.every((r) => Object.keys(r).length === 0)).toBe(true);
          expected += sends.length;
          const histories = await eventually(async () => {
            const all = await Promise.all(MEMBERS.map(historyOf));
            return all.every((h) => h.length === expected) ? all : undefined;
          });
          for (const history of histories.slice(1)) expect(history).toEqual(histories[0]);
          expect(new Set(histories[0]).size).toBe(expected);
        },
      ),
      { numRuns: 4 },
    );
  });
});

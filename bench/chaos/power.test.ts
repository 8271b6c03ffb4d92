/**
 * The power-cut trials as a test: one trial of each power-cut kind, with fixed seeds and a short
 * run of traffic, each cut struck while it flows; every promise must hold. Where lossyfs cannot be
 * mounted (no FUSE, not root, no compiler) it says so in one line and the trials are skipped.
 */
import { tmpdir } from "node:os";
import { beforeAll, describe, expect, it } from "vitest";
import { lossyfsUnavailable } from "./lossyfs.js";
import { POWER_CUTS } from "./power.js";
import { runTrial } from "./trial.js";

let unavailable: string | undefined;
beforeAll(async () => {
  unavailable = await lossyfsUnavailable(tmpdir());
  if (unavailable !== undefined)
    process.stdout.write(`power-cut trials skipped: lossyfs cannot be mounted (${unavailable})\n`);
}, 120_000);

describe("power-cut trials", () => {
  for (const [i, fault] of POWER_CUTS.entries()) {
    it(`keeps every promise when ${fault.summary}, while traffic flows`, async (t) => {
      if (unavailable !== undefined) return t.skip();
      const report = await runTrial({ fault, seed: 2101 + i, messages: 60, inFlight: 4, strikes: 1 });
      expect(report.violations).toEqual([]);
      expect(report.struck.length).toBeGreaterThan(0);
      expect(report.counts.delivered).toBeGreaterThan(0);
    }, 300_000);
  }
});

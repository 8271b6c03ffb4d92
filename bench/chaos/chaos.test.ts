/**
 * The crash trials as a test: one trial of each kind, with fixed seeds and a short run of traffic
 * (direct and group sends, a gather in flight, a webhook consumer receiving), each fault struck
 * while it flows. Every promise must hold: nothing returned or delivery-pending lost, nothing
 * offered twice, no token rebound, nothing acknowledged back, nothing refused delivered.
 * `npm run chaos` runs the same trials at length.
 */
import { describe, expect, it } from "vitest";
import { FAULTS } from "./faults.js";
import { runTrial } from "./trial.js";

describe("crash trials", () => {
  for (const [i, fault] of FAULTS.entries()) {
    it(`keeps every promise when ${fault.summary}, while traffic flows`, async () => {
      const report = await runTrial({ fault, seed: 1301 + i, messages: 60, inFlight: 4, strikes: 1 });
      expect(report.violations).toEqual([]);
      expect(report.struck.length).toBeGreaterThan(0);
      expect(report.counts.delivered).toBeGreaterThan(0);
    }, 300_000);
  }
});

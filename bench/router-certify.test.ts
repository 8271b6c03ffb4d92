import { describe, expect, it } from "vitest";
import { commitTotals, groupCommits } from "./router-certify.js";

/** A router's /metrics as prom-client writes it, after `commits` group commits. */
function exposition(commits: number, appends: number, loopSeconds: number, threadSeconds: number): string {
  return [
    "# HELP social_harness_router_certified_records_total Records the router committed and certified.",
    "# TYPE social_harness_router_certified_records_total counter",
    `social_harness_router_certified_records_total ${appends}`,
    "# TYPE social_harness_router_commit_batch_appends histogram",
    `social_harness_router_commit_batch_appends_bucket{le="1"} 1`,
    `social_harness_router_commit_batch_appends_bucket{le="+Inf"} ${commits}`,
    `social_harness_router_commit_batch_appends_sum ${appends}`,
    `social_harness_router_commit_batch_appends_count ${commits}`,
    "# TYPE social_harness_router_commit_duration_seconds histogram",
    `social_harness_router_commit_duration_seconds_bucket{le="0.001",place="loop"} 3`,
    `social_harness_router_commit_duration_seconds_sum{place="loop"} ${loopSeconds}`,
    `social_harness_router_commit_duration_seconds_count{place="loop"} ${commits - 2}`,
    `social_harness_router_commit_duration_seconds_sum{place="thread"} ${threadSeconds}`,
    `social_harness_router_commit_duration_seconds_count{place="thread"} 2`,
    `social_harness_router_certify_duration_seconds_sum{outcome="certified"} 99`,
    "",
  ].join("\n");
}

describe("the router section's group commits", () => {
  it("reads the commit totals of a scrape, summing every place and nothing else", () => {
    expect(commitTotals(exposition(10, 40, 0.01, 0.004))).toEqual({ commits: 10, appends: 40, seconds: 0.014 });
  });

  it("gives the appends a commit held and its mean duration between two scrapes", () => {
    const commits = groupCommits(
      commitTotals(exposition(10, 40, 0.01, 0)),
      commitTotals(exposition(110, 440, 0.11, 0.02)),
    );
    expect(commits?.appendsPerCommit).toBe(4);
    expect(commits?.commitMs).toBeCloseTo(1.2, 9);
  });

  it("says nothing when no commit ran between the scrapes", () => {
    const totals = commitTotals(exposition(10, 40, 0.01, 0));
    expect(groupCommits(totals, totals)).toBeUndefined();
  });
});

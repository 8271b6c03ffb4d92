import { describe, expect, it } from "vitest";
import { SlotCounter, SlotHistogram } from "./exposition.js";

describe("slot metrics", () => {
  it("counts each label set in its own slot and exposes zeros", async () => {
    const counter = new SlotCounter("c_total", "help", [{ reason: "a" }, { reason: "b" }]);
    counter.inc(1);
    counter.inc(1, 2);
    expect((await counter.get()).values).toEqual([
      { value: 0, labels: { reason: "a" } },
      { value: 3, labels: { reason: "b" } },
    ]);
  });

  it("exposes cumulative buckets, +Inf, sum and count per label set", async () => {
    const histogram = new SlotHistogram("h_seconds", "help", [0.1, 1], [{ outcome: "x" }, { outcome: "y" }]);
    histogram.observe(0, 0.05);
    histogram.observe(0, 0.5);
    histogram.observe(0, 5);
    const values = (await histogram.get()).values.filter((v) => v.labels.outcome === "x");
    expect(values).toEqual([
      { value: 1, labels: { outcome: "x", le: 0.1 }, metricName: "h_seconds_bucket" },
      { value: 2, labels: { outcome: "x", le: 1 }, metricName: "h_seconds_bucket" },
      { value: 3, labels: { outcome: "x", le: "+Inf" }, metricName: "h_seconds_bucket" },
      { value: 5.55, labels: { outcome: "x" }, metricName: "h_seconds_sum" },
      { value: 3, labels: { outcome: "x" }, metricName: "h_seconds_count" },
    ]);
  });
});

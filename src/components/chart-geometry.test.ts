import { describe, expect, it } from "vitest";
import { sameSeries, seriesPath, stackedBarPaths, type Series } from "./chart-geometry";

const series = (key: string, values: (number | null)[]): Series => ({ key, label: key, color: "#000", values });

describe("chart geometry", () => {
  it("stacks each series above the ones before it, one path per series, skipping zeros", () => {
    const [first, second] = stackedBarPaths([series("a", [1, 0, 2]), series("b", [1, 1, 0])], 300, 100, 2);
    expect(first).toBe("M10 100V50h80V100ZM210 100V0h80V100Z");
    expect(second).toBe("M10 50V0h80V50ZM110 100V50h80V100Z");
  });

  it("draws a line through bucket centres with a gap where a value is missing", () => {
    expect(seriesPath(series("a", [0, 4, null, 2]), 400, 100, 4)).toBe("M50 100L150 0M350 50");
    expect(seriesPath(series("a", []), 400, 100, 4)).toBe("");
  });

  it("keeps thousands of buckets in one path per series", () => {
    const values = Array.from({ length: 5_000 }, (_, i) => i % 7);
    const paths = stackedBarPaths([series("a", values)], 600, 140, 6);
    expect(paths).toHaveLength(1);
    expect(paths[0]!.split("M")).toHaveLength(1 + values.filter((v) => v > 0).length);
  });

  it("sees two series lists as the same chart only when their value arrays are the same arrays", () => {
    const values = [1, 2, 3];
    expect(sameSeries([series("a", values)], [series("a", values)])).toBe(true);
    expect(sameSeries([series("a", values)], [series("a", [1, 2, 3])])).toBe(false);
    expect(sameSeries([series("a", values)], [series("b", values)])).toBe(false);
  });
});

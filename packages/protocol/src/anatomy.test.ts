/** The latency anatomy records nothing until enabled, then monotonic hops as JSON lines. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { anatomyClock, enableAnatomy, flushAnatomy, hop, hopAt, readAnatomy } from "./anatomy.js";

describe("anatomy", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "sh-anatomy-test-"));
  const file = path.join(dir, "hops.jsonl");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("records nothing while off", () => {
    expect(anatomyClock()).toBeUndefined();
    hop("test.off");
    hopAt("test.off-at", 1n);
    flushAnatomy();
    expect(readAnatomy(file)).toEqual([]);
  });

  it("records hops in monotonic order with the process label and key once enabled", () => {
    enableAnatomy({ file, label: "tester" });
    const early = anatomyClock();
    hop("test.first", "k1");
    hop("test.second");
    hopAt("test.earlier", early, "k0");
    flushAnatomy();
    const hops = readAnatomy(file);
    expect(hops.map((h) => [h.label, h.hop, h.key])).toEqual([
      ["tester", "test.earlier", "k0"],
      ["tester", "test.first", "k1"],
      ["tester", "test.second", undefined],
    ]);
    expect(hops[0]!.ns <= hops[1]!.ns && hops[1]!.ns <= hops[2]!.ns).toBe(true);
  });
});

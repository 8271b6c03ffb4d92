import { describe, expect, it } from "vitest";
import { layoutMap, pairsOf, type MapEdge, type MapNode } from "./map-layout";

const GROUP = "group:alice,bob,carol";
const nodes: MapNode[] = [
  { id: "agent:bob", kind: "self", label: "bob", conversation: null },
  { id: "agent:alice", kind: "agent", label: "alice", conversation: "direct:alice,bob" },
  { id: "agent:carol", kind: "agent", label: "carol", conversation: "direct:bob,carol" },
  { id: GROUP, kind: "group", label: "alice, bob, carol", conversation: GROUP },
];
const edges: MapEdge[] = [
  { from: "agent:alice", to: "agent:bob", count: 4 },
  { from: "agent:bob", to: "agent:alice", count: 1 },
  { from: "agent:alice", to: GROUP, count: 2 },
  { from: "agent:carol", to: GROUP, count: 0 },
];

describe("conversation map layout", () => {
  it("puts the daemon's agent in the centre and the others on a ring inside the frame", () => {
    const positions = layoutMap(nodes, edges, 360);
    expect(positions.get("agent:bob")).toEqual({ x: 180, y: 180 });
    for (const id of ["agent:alice", "agent:carol", GROUP]) {
      const at = positions.get(id)!;
      expect(at.x).toBeGreaterThan(0);
      expect(at.x).toBeLessThan(360);
      expect(Math.hypot(at.x - 180, at.y - 180)).toBeGreaterThan(50);
    }
  });

  it("folds directed edges into one pair per line, the daemon's agent first", () => {
    expect(pairsOf(edges, "agent:bob")).toEqual([
      { a: "agent:bob", b: "agent:alice", ab: 1, ba: 4 },
      { a: "agent:alice", b: GROUP, ab: 2, ba: 0 },
      { a: "agent:carol", b: GROUP, ab: 0, ba: 0 },
    ]);
  });
});

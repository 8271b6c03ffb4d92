/**
 * Layout of the conversation map, kept pure for tests: the daemon's own agent at the centre,
 * every other agent evenly on a ring, each group on an inner ring at the mean angle of its
 * members. Directed edges fold into one pair per line, counting each way.
 */
import type { OverviewSummary } from "@/trpc/owner-api";

export type MapNode = OverviewSummary["map"]["nodes"][number];
export type MapEdge = OverviewSummary["map"]["edges"][number];

export interface Pair {
  readonly a: string;
  readonly b: string;
  /** Messages from a to b, and from b to a. */
  readonly ab: number;
  readonly ba: number;
}

export function layoutMap(
  nodes: readonly MapNode[],
  edges: readonly MapEdge[],
  size: number,
): Map<string, { x: number; y: number }> {
  const centre = size / 2;
  const outer = size / 2 - 34;
  const inner = outer * 0.55;
  const positions = new Map<string, { x: number; y: number }>();
  const angles = new Map<string, number>();
  const agents = nodes.filter((n) => n.kind === "agent");
  agents.forEach((node, i) => {
    const angle = -Math.PI / 2 + (2 * Math.PI * i) / Math.max(agents.length, 1);
    angles.set(node.id, angle);
    positions.set(node.id, { x: centre + outer * Math.cos(angle), y: centre + outer * Math.sin(angle) });
  });
  const groups = nodes.filter((n) => n.kind === "group");
  groups.forEach((group, i) => {
    const memberAngles = edges.filter((e) => e.to === group.id).flatMap((e) => angles.get(e.from) ?? []);
    const x = memberAngles.reduce((s, a) => s + Math.cos(a), 0);
    const y = memberAngles.reduce((s, a) => s + Math.sin(a), 0);
    const angle = x === 0 && y === 0 ? Math.PI / 2 + (2 * Math.PI * i) / groups.length : Math.atan2(y, x);
    positions.set(group.id, { x: centre + inner * Math.cos(angle), y: centre + inner * Math.sin(angle) });
  });
  for (const node of nodes) if (node.kind === "self") positions.set(node.id, { x: centre, y: centre });
  return positions;
}

/** One entry per connected pair, `self` first in its pairs, ordered as they first appear in `edges`. */
export function pairsOf(edges: readonly MapEdge[], self: string): Pair[] {
  const pairs = new Map<string, { a: string; b: string; ab: number; ba: number }>();
  for (const edge of [...edges.filter((e) => e.from === self), ...edges.filter((e) => e.from !== self)]) {
    const forward = `${edge.from}\u0000${edge.to}`;
    const backward = `${edge.to}\u0000${edge.from}`;
    const found = pairs.get(forward) ?? pairs.get(backward);
    if (found === undefined) pairs.set(forward, { a: edge.from, b: edge.to, ab: edge.count, ba: 0 });
    else if (found.a === edge.from) found.ab += edge.count;
    else found.ba += edge.count;
  }
  return [...pairs.values()];
}

"use client";
/**
 * The conversation map of the Overview: the daemon's agent in the middle, the agents it talks to
 * on a ring, each group on an inner ring near its members. A line's width grows with the messages
 * it carried (both ways); each node is a link to that conversation's history. The same numbers
 * follow as a list, which is what a screen reader or a narrow phone reads.
 */
import { useRouter } from "next/navigation";
import { memo } from "react";
import { layoutMap, pairsOf, type MapEdge, type MapNode } from "./map-layout";

const SIZE = 360;

function historyHref(daemon: string, conversation: string): string {
  return `/d/${encodeURIComponent(daemon)}/history?conversation=${encodeURIComponent(conversation)}`;
}

function ConversationMapImpl({
  daemon,
  nodes,
  edges,
}: {
  daemon: string;
  nodes: readonly MapNode[];
  edges: readonly MapEdge[];
}) {
  const router = useRouter();
  const talked = edges.some((e) => e.count > 0);
  const positions = layoutMap(nodes, edges, SIZE);
  const pairs = pairsOf(edges, `agent:${daemon}`);
  const byId = new Map(nodes.map((node) => [node.id, node]));
  return (
    <figure
      aria-labelledby="map-title"
      className="rounded-xl border border-line bg-surface p-4 shadow-sm lg:col-span-2"
      data-testid="conversation-map"
    >
      <figcaption id="map-title" className="text-sm font-semibold">
        Who {daemon} talks to
      </figcaption>
      {!talked ? (
        <p className="mt-3 rounded-md border border-dashed border-line-strong px-3 py-6 text-center text-sm text-ink-muted">
          Once {daemon} sends or receives messages, the agents and groups it talks to appear here, linked by how much
          each side wrote.
        </p>
      ) : (
        <div className="mt-3 grid gap-4 md:grid-cols-[minmax(0,22rem)_1fr]">
          <svg viewBox={`0 0 ${SIZE} ${SIZE}`} className="w-full max-w-sm" role="group" aria-label="Conversation map">
            {pairs.map((pair) => {
              const a = positions.get(pair.a);
              const b = positions.get(pair.b);
              if (a === undefined || b === undefined) return null;
              return (
                <line
                  key={`${pair.a}|${pair.b}`}
                  x1={a.x}
                  y1={a.y}
                  x2={b.x}
                  y2={b.y}
                  className="stroke-ink-faint"
                  strokeOpacity={0.6}
                  strokeWidth={1 + 2 * Math.log2(1 + pair.ab + pair.ba)}
                  data-testid="map-edge"
                  data-from={pair.a}
                  data-to={pair.b}
                  data-count={pair.ab + pair.ba}
                >
                  <title>{`${pair.a} → ${pair.b}: ${pair.ab}; ${pair.b} → ${pair.a}: ${pair.ba}`}</title>
                </line>
              );
            })}
            {nodes.map((node) => {
              const at = positions.get(node.id);
              if (at === undefined) return null;
              const radius = node.kind === "self" ? 24 : node.kind === "agent" ? 18 : 13;
              const label = node.kind === "group" ? `group of ${node.label.split(", ").length}` : node.label;
              const body = (
                <>
                  <circle
                    cx={at.x}
                    cy={at.y}
                    r={radius}
                    className={
                      node.kind === "self"
                        ? "fill-accent"
                        : node.kind === "agent"
                          ? "fill-accent-soft stroke-accent"
                          : "fill-warn-soft stroke-warn"
                    }
                    strokeWidth={1.5}
                  />
                  <text x={at.x} y={at.y + radius + 13} textAnchor="middle" className="fill-ink text-[11px]">
                    {label}
                  </text>
                  <title>{node.kind === "group" ? `group: ${node.label}` : `agent:${node.label}`}</title>
                </>
              );
              if (node.conversation === null)
                return (
                  <g key={node.id} data-testid="map-node" data-node={node.id}>
                    {body}
                  </g>
                );
              const href = historyHref(daemon, node.conversation);
              return (
                <a
                  key={node.id}
                  href={href}
                  onClick={(event) => {
                    event.preventDefault();
                    router.push(href);
                  }}
                  aria-label={`History with ${node.kind === "group" ? `the group ${node.label}` : node.label}`}
                  data-testid="map-node"
                  data-node={node.id}
                  className="cursor-pointer"
                >
                  {body}
                </a>
              );
            })}
          </svg>
          <table className="w-full self-start text-sm" aria-label="Messages each way">
            <thead className="text-left text-xs text-ink-faint">
              <tr>
                <th className="py-1 font-medium">Between</th>
                <th className="py-1 text-right font-medium">→</th>
                <th className="py-1 text-right font-medium">←</th>
              </tr>
            </thead>
            <tbody>
              {pairs.map((pair) => {
                const other = byId.get(pair.b);
                const name = (id: string) => {
                  const node = byId.get(id);
                  return node === undefined ? id : node.kind === "group" ? `group ${node.label}` : node.label;
                };
                return (
                  <tr key={`${pair.a}|${pair.b}`} className="border-t border-line">
                    <td className="py-1.5 break-words">
                      {name(pair.a)} and{" "}
                      {other?.conversation != null ? (
                        <a className="font-medium underline" href={historyHref(daemon, other.conversation)}>
                          {name(pair.b)}
                        </a>
                      ) : (
                        name(pair.b)
                      )}
                    </td>
                    <td className="py-1.5 text-right tabular-nums">{pair.ab}</td>
                    <td className="py-1.5 text-right tabular-nums">{pair.ba}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </figure>
  );
}

/** The map re-renders only when its nodes or edges changed (react-query keeps unchanged arrays). */
export const ConversationMap = memo(ConversationMapImpl);

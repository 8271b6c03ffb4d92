/**
 * The owner's Overview (issue 19): what the daemon did over the last hour, day or week, drawn
 * from its own stored history, inbox, holds, firewall audit and webhook attempts, so it is true
 * after a restart. Series come back as dense bucket arrays (one entry per interval, zeros kept)
 * aligned to the interval, so a poll changes only the newest points and a chart can update in place.
 */
import type { DaemonStore } from "../db/database.js";
import {
  countAttempts,
  countDecisions,
  countMessages,
  countTalk,
  holdFlow,
  inboxFlow,
  judgeLatency,
  subscriptionHealth,
  type Flow,
  type Window,
} from "./overview.store.js";
import type { OverviewWindow } from "./overview.schema.js";

const MINUTE = 60_000;
const SPANS: Record<OverviewWindow, { intervalMs: number; buckets: number }> = {
  hour: { intervalMs: MINUTE, buckets: 60 },
  day: { intervalMs: 15 * MINUTE, buckets: 96 },
  week: { intervalMs: 120 * MINUTE, buckets: 84 },
};

const MESSAGE_KINDS = ["direct", "group", "gather", "all_gather"] as const;
const DECISIONS = ["allow", "guidance", "hold", "refuse", "error"] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];
export type DecisionKind = (typeof DECISIONS)[number];

type Counts<K extends string> = Record<K, number[]>;

export interface MapNode {
  /** "agent:<name>" or the group's canonical address. */
  readonly id: string;
  readonly kind: "self" | "agent" | "group";
  readonly label: string;
  /** The history conversation a click opens (none for the daemon's own agent). */
  readonly conversation: string | null;
}

export interface MapEdge {
  readonly from: string;
  readonly to: string;
  /** Posts `from` wrote that `to` received (for a group: posts the member wrote in the group). */
  readonly count: number;
}

function counts<K extends string>(keys: readonly K[], length: number): Counts<K> {
  return Object.fromEntries(keys.map((key) => [key, new Array<number>(length).fill(0)])) as Counts<K>;
}

function inRange(bucket: number, length: number): boolean {
  return Number.isInteger(bucket) && bucket >= 0 && bucket < length;
}

/** Open count at the end of each bucket, from the count before the window and each bucket's flow. */
function levels(flow: Flow, length: number): number[] {
  const delta = new Array<number>(length).fill(0);
  for (const row of flow.rows) if (inRange(row.bucket, length)) delta[row.bucket]! += row.opened - row.closed;
  let open = flow.before;
  return delta.map((d) => (open += d));
}

export class Overview {
  constructor(
    private readonly store: DaemonStore,
    private readonly self: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Every series of the Overview over `window`. */
  async summary(windowName: OverviewWindow) {
    const span = SPANS[windowName];
    const end = Math.floor(this.now() / span.intervalMs) * span.intervalMs + span.intervalMs;
    const window: Window = { from: end - span.buckets * span.intervalMs, intervalMs: span.intervalMs };
    const db = this.store.db;
    const n = span.buckets;
    const [messages, inbox, holds, decisions, judge, attempts, subscriptions, talk] = await Promise.all([
      countMessages(db, this.self, window),
      inboxFlow(db, window),
      holdFlow(db, window),
      countDecisions(db, window),
      judgeLatency(db, window),
      countAttempts(db, window),
      subscriptionHealth(db, window),
      countTalk(db, window),
    ]);

    const sent = counts(MESSAGE_KINDS, n);
    const received = counts(MESSAGE_KINDS, n);
    for (const row of messages) {
      if (!inRange(row.bucket, n)) continue;
      (row.direction === "sent" ? sent : received)[row.kind][row.bucket]! += row.count;
    }
    const inbound = counts(DECISIONS, n);
    const outbound = counts(DECISIONS, n);
    for (const row of decisions) {
      if (!inRange(row.bucket, n)) continue;
      (row.direction === "inbound" ? inbound : outbound)[row.decision][row.bucket]! += row.count;
    }
    const judgeCalls = new Array<number>(n).fill(0);
    const judgeErrors = new Array<number>(n).fill(0);
    const judgeMeanMs = new Array<number | null>(n).fill(null);
    const judgeMaxMs = new Array<number | null>(n).fill(null);
    for (const row of judge) {
      if (!inRange(row.bucket, n)) continue;
      judgeCalls[row.bucket] = row.calls;
      judgeErrors[row.bucket] = row.errors;
      judgeMeanMs[row.bucket] = Math.round(row.meanUs / 100) / 10;
      judgeMaxMs[row.bucket] = Math.round(row.maxUs / 100) / 10;
    }

    return {
      window: windowName,
      from: window.from,
      intervalMs: window.intervalMs,
      buckets: n,
      messages: { sent, received },
      inbox: { pending: levels(inbox, n), held: levels(holds, n) },
      firewall: {
        inbound,
        outbound,
        judge: { calls: judgeCalls, errors: judgeErrors, meanMs: judgeMeanMs, maxMs: judgeMaxMs },
      },
      webhooks: subscriptions.map((subscription) => {
        const delivered = new Array<number>(n).fill(0);
        const failed = new Array<number>(n).fill(0);
        const retries = new Array<number>(n).fill(0);
        const meanMs = new Array<number | null>(n).fill(null);
        for (const row of attempts) {
          if (row.subscriptionId !== subscription.id || !inRange(row.bucket, n)) continue;
          delivered[row.bucket] = row.delivered;
          failed[row.bucket] = row.failed;
          retries[row.bucket] = row.retries;
          meanMs[row.bucket] = Math.round(row.meanMs);
        }
        return {
          id: subscription.id,
          eventName: subscription.eventName,
          state: subscription.state,
          terminalStatus: subscription.terminalStatus,
          failingSince: subscription.failingSince,
          lastError: subscription.lastError,
          deliveredTotal: subscription.delivered,
          series: { delivered, failed, retries, meanMs },
        };
      }),
      map: this.conversationMap(talk),
    };
  }

  /** An agent's node opens its direct conversation with this daemon's agent. */
  private directWith(name: string): string | null {
    return name === this.self ? null : `direct:${[name, this.self].sort().join(",")}`;
  }

  private conversationMap(talk: Awaited<ReturnType<typeof countTalk>>) {
    const self = `agent:${this.self}`;
    const nodes = new Map<string, MapNode>([[self, { id: self, kind: "self", label: this.self, conversation: null }]]);
    const edges = new Map<string, MapEdge>();
    const addEdge = (from: string, to: string, count: number) => {
      const key = `${from}\u0000${to}`;
      const edge = edges.get(key);
      edges.set(key, { from, to, count: (edge?.count ?? 0) + count });
    };
    for (const row of talk) {
      const author = `agent:${row.author}`;
      if (row.conv.startsWith("direct:")) {
        const peer = row.conv
          .slice("direct:".length)
          .split(",")
          .find((name) => name !== this.self);
        if (peer === undefined) continue;
        const id = `agent:${peer}`;
        if (!nodes.has(id)) nodes.set(id, { id, kind: "agent", label: peer, conversation: row.conv });
        addEdge(author, author === self ? id : self, row.count);
        continue;
      }
      if (!nodes.has(row.conv)) {
        const members = JSON.parse(row.members) as string[];
        nodes.set(row.conv, { id: row.conv, kind: "group", label: members.join(", "), conversation: row.conv });
        // Members with no post yet still belong to the group; give them a node and a zero edge.
        for (const member of members) {
          const id = `agent:${member}`;
          if (!nodes.has(id))
            nodes.set(id, { id, kind: "agent", label: member, conversation: this.directWith(member) });
          addEdge(id, row.conv, 0);
        }
      }
      addEdge(author, row.conv, row.count);
    }
    return { nodes: [...nodes.values()], edges: [...edges.values()] };
  }
}

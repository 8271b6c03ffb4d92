/**
 * What a kind of traffic is to a trial. A kind names the agents it needs and how each takes its
 * items, makes its messages, recognises its items in an inbox, says which recipients each message
 * is meant for, and may react to what arrives (a member answers a gather) or keep promises of its
 * own (a firewall hold stays out of the inbox). The trial and the checks are the same for all.
 * Adding a kind: write one of these and list it in `kinds.ts`.
 */
import type { InboundItem } from "@social-harness/protocol";
import type { McpHost } from "./host.js";
import type { Ledger, Message, Pair, Violation } from "./ledger.js";
import type { DaemonServer } from "./processes.js";
import type { Random } from "./random.js";

/** A daemon a kind needs; specs of the same name from several kinds are merged. */
export interface AgentSpec {
  readonly name: string;
  /** How its host takes items: reading and acknowledging over MCP, or a webhook receiver. */
  readonly consumer: "mcp" | "webhook";
  readonly args?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
}

/** One read_inbox entry, its item checked against the protocol's schema. */
export interface InboxEntry {
  readonly deliveryToken: string;
  readonly item: InboundItem;
  readonly guidance?: unknown;
}

/** What every kind may use while a trial runs. */
export interface TrafficContext {
  /** The trial's own directory (certificates, policy files). */
  readonly dir: string;
  /** The agent whose host sends the traffic (and is the "sender" fault's victim). */
  readonly sender: string;
  /** Every agent of the trial, the sender included. */
  readonly agents: readonly string[];
  readonly ledger: Ledger;
  readonly random: Random;
  /** True while hosts leave what they are offered pending (before the last crash), so it lives through it. */
  readonly holding: () => boolean;
  readonly host: (name: string) => McpHost;
  /** What an item is, asking every kind of the trial. */
  readonly identify: (recipient: string, item: InboundItem) => string | undefined;
  readonly daemon: (name: string) => DaemonServer;
  /** Sends one message of `kind` from the sender now (its text made from a fresh id), and records it. */
  readonly send: (kind: TrafficKind, to: string, text: (id: string) => string) => Promise<Message>;
}

/** What must and must not reach whom, given how the send ended. */
export interface Expectations {
  readonly mustSee: readonly Pair[];
  readonly mustNotSee: readonly Pair[];
}

export interface TrafficKind {
  readonly name: string;
  /** Its share of the traffic, relative to the other kinds. */
  readonly weight: number;
  /** Runs before any process starts (write certificates or policy files into `dir`). */
  setup?(dir: string): Promise<void>;
  /** The agents this kind needs (read after `setup`). */
  agents(): readonly AgentSpec[];
  /** Runs once every process is up, before traffic (open a group, subscribe a webhook). */
  prepare?(ctx: TrafficContext): Promise<void>;
  /** False while another message of this kind cannot start (one gather in flight at a time). */
  canStart?(ctx: TrafficContext): boolean;
  /** The next message: where it goes and its text, which must carry `id` (see `messageText`). */
  compose(id: string, ctx: TrafficContext): { readonly to: string; readonly text: string };
  /** Called when a send of this kind ended (its outcome is set). */
  sent?(message: Message, ctx: TrafficContext): void;
  /** What an item is, when this kind made it: the key its deliveries are counted under. */
  readonly identify: (recipient: string, item: InboundItem) => string | undefined;
  /** Whom a message is meant to reach, and under which key. */
  intended(message: Message): readonly Pair[];
  /** Overrides the default: a send that returned or is delivery-pending must reach every intended
   *  pair; a refused one must reach none; an outcome-unknown one may reach each at most once. */
  expectations?(message: Message): Expectations;
  /** A host's reaction to an item before acknowledging it (a member answers a gather). */
  react?(recipient: string, entry: InboxEntry, ctx: TrafficContext): Promise<void>;
  /** False while items of this kind may still be on their way (a gather before its deadline). */
  quiescent?(ctx: TrafficContext): boolean;
  /** Promises of this kind that the common checks do not cover, checked after the trial. */
  check?(ctx: TrafficContext): Promise<readonly Violation[]>;
  teardown?(): Promise<void>;
}

/** The text of a traffic message: its id first, so any delivery names its message. */
export function messageText(id: string, kind: string, padding: number): string {
  return `chaos ${id} ${kind} ${"·".repeat(padding)}`.trimEnd();
}

/** The message id a multicast item carries, when it is one of ours. */
export function messageIdOf(item: InboundItem): string | undefined {
  if (item.kind !== "multicast") return undefined;
  const part = item.message.content.find((p) => p.type === "text");
  return part === undefined ? undefined : /^chaos (\S+) /.exec(`${part.text} `)?.[1];
}

/** The default expectations, from the intended pairs and how the send ended. */
export function defaultExpectations(kind: TrafficKind, message: Message): Expectations {
  const intended = kind.intended(message);
  switch (message.outcome) {
    case "returned":
    case "delivery-pending":
      return { mustSee: intended, mustNotSee: [] };
    case "refused":
      return { mustSee: [], mustNotSee: intended };
    case "outcome-unknown":
    case undefined:
      return { mustSee: [], mustNotSee: [] };
  }
}

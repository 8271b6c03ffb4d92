/**
 * Multicast traffic: direct messages to an agent whose host reads over MCP, and group messages to
 * every agent of the trial (whatever consumer each has). A returned or delivery-pending send reaches
 * every recipient exactly once; a refused one reaches nobody; the sender is never offered its own post.
 */
import type { InboundItem } from "@social-harness/protocol";
import type { Message, Pair } from "../ledger.js";
import {
  defaultExpectations,
  messageIdOf,
  messageText,
  type AgentSpec,
  type Expectations,
  type TrafficContext,
  type TrafficKind,
} from "../traffic.js";

/** Message sizes: mostly short, now and then a long one. */
export function padding(ctx: TrafficContext): number {
  return ctx.random.chance(0.03) ? ctx.random.int(4_000, 16_000) : ctx.random.int(0, 300);
}

/** A key for the item of a multicast message of ours. */
export function identifyMulticast(_recipient: string, item: InboundItem): string | undefined {
  const id = messageIdOf(item);
  return id === undefined ? undefined : `msg:${id}`;
}

interface MulticastOptions {
  readonly name: string;
  readonly weight: number;
  readonly agents: readonly AgentSpec[];
  /** The address of the next message (known once the trial's agents are). */
  address(ctx: TrafficContext): string;
  /** Who must receive a message to that address. */
  recipients(message: Message): readonly string[];
}

/** A kind whose messages are plain multicasts. */
export function multicastKind(options: MulticastOptions): TrafficKind {
  const kind: TrafficKind = {
    name: options.name,
    weight: options.weight,
    agents: () => options.agents,
    compose: (id, ctx) => ({ to: options.address(ctx), text: messageText(id, options.name, padding(ctx)) }),
    identify: identifyMulticast,
    intended: (message): Pair[] =>
      options.recipients(message).map((recipient) => ({ recipient, key: `msg:${message.id}` })),
    expectations(message): Expectations {
      const base = defaultExpectations(kind, message);
      return { ...base, mustNotSee: [...base.mustNotSee, { recipient: message.from, key: `msg:${message.id}` }] };
    },
  };
  return kind;
}

/** Direct messages from the sender to `recipient`, whose host reads and acknowledges over MCP. */
export function directKind(recipient = "bob"): TrafficKind {
  return multicastKind({
    name: "direct",
    weight: 4,
    agents: [{ name: recipient, consumer: "mcp" }],
    address: () => `agent:${recipient}`,
    recipients: () => [recipient],
  });
}

/** Group messages to every agent of the trial; the group is opened (GENESIS) before traffic. */
export function groupKind(): TrafficKind {
  let members: readonly string[] = [];
  const kind = multicastKind({
    name: "group",
    weight: 2,
    agents: [
      { name: "bob", consumer: "mcp" },
      { name: "carol", consumer: "mcp" },
    ],
    address: () => `group:${members.join(",")}`,
    recipients: (message) => members.filter((m) => m !== message.from),
  });
  return {
    ...kind,
    async prepare(ctx) {
      members = [...ctx.agents].sort();
      // Every member co-signs the GENESIS, so the first send needs them all linked; retry briefly.
      for (let attempt = 1; ; attempt++) {
        const opened = await ctx.send(kind, `group:${members.join(",")}`, (id) => messageText(id, "group", 0));
        if (opened.outcome === "returned") return;
        if (attempt === 10) throw new Error(`the group did not open: ${opened.outcome} ${opened.detail}`);
        await new Promise((r) => setTimeout(r, 300));
      }
    },
  };
}

/**
 * A host that takes its agent's items over MCP, as a real host does: it reads the whole inbox with
 * `read_inbox` (every page), writes down every (token, payload) it is offered, lets the traffic
 * kinds react (a member answers a gather), and acknowledges most items with `acknowledge_delivery`,
 * leaving some pending for a later read, so pending items also live through crashes. It never
 * stops for a dead daemon: it waits and reads again.
 */
import { InboundItemSchema, type InboundItem } from "@social-harness/protocol";
import * as z from "zod";
import type { McpHost } from "./host.js";
import { canonicalJson, type Ledger } from "./ledger.js";
import type { Random } from "./random.js";
import type { InboxEntry } from "./traffic.js";

const PageSchema = z.object({
  items: z.array(z.object({ deliveryToken: z.string(), item: z.unknown(), guidance: z.unknown().optional() })),
  nextCursor: z.string().optional(),
});

/** An item checked against the protocol; a malformed one is an incident (its raw form is still recorded). */
export function checkedItem(raw: unknown, ledger: Ledger, where: string): InboundItem | undefined {
  const parsed = InboundItemSchema.safeParse(raw);
  if (!parsed.success) ledger.incident("malformed-item", `${where}: ${canonicalJson(raw).slice(0, 300)}`);
  return parsed.success ? parsed.data : undefined;
}

export interface InboxHostOptions {
  readonly host: McpHost;
  readonly ledger: Ledger;
  readonly random: Random;
  /** What an item is (asks every traffic kind). */
  readonly identify: (recipient: string, item: InboundItem) => string | undefined;
  /** Lets the traffic kinds react to an item before it is acknowledged. */
  readonly react: (recipient: string, entry: InboxEntry) => Promise<void>;
  /** The chance that an item is acknowledged on a read (the rest wait for a later read). */
  readonly ackProbability: number;
  /** While true the host reads and reacts but acknowledges nothing. */
  readonly holding: () => boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads every page of the inbox once, writing down what was offered; undefined when the daemon is away. */
export async function readInbox(
  host: McpHost,
  ledger: Ledger,
  identify: InboxHostOptions["identify"],
): Promise<InboxEntry[] | undefined> {
  const entries: InboxEntry[] = [];
  let cursor: string | undefined;
  do {
    const at = Date.now();
    const call = await host.call("read_inbox", cursor === undefined ? {} : { cursor });
    if (!call.ok) return undefined;
    const page = PageSchema.safeParse(call.result);
    if (!page.success) {
      ledger.incident("malformed-page", `read_inbox at ${host.name}: ${canonicalJson(call.result).slice(0, 300)}`);
      return undefined;
    }
    for (const entry of page.data.items) {
      const item = checkedItem(entry.item, ledger, `read_inbox at ${host.name}`);
      ledger.sight({
        recipient: host.name,
        via: "mcp",
        token: entry.deliveryToken,
        payload: canonicalJson({ item: entry.item, guidance: entry.guidance ?? null }),
        key: item === undefined ? undefined : identify(host.name, item),
        at,
        accepted: true,
      });
      if (item !== undefined) entries.push({ deliveryToken: entry.deliveryToken, item, guidance: entry.guidance });
    }
    cursor = page.data.nextCursor;
  } while (cursor !== undefined);
  return entries;
}

export class InboxHost {
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: InboxHostOptions) {}

  start(): void {
    this.stopped = false;
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    this.running = undefined;
  }

  private async loop(): Promise<void> {
    const { host, ledger, random } = this.options;
    while (!this.stopped) {
      const entries = await readInbox(host, ledger, this.options.identify);
      if (entries === undefined) {
        await sleep(100);
        continue;
      }
      // Reactions first (a member answers a gather before its deadline), then acknowledgments.
      for (const entry of entries) await this.options.react(host.name, entry);
      for (const entry of entries) {
        if (this.options.holding() || !random.chance(this.options.ackProbability)) continue;
        const call = await host.call("acknowledge_delivery", { deliveryToken: entry.deliveryToken });
        if (call.ok) ledger.ack({ recipient: host.name, via: "mcp", token: entry.deliveryToken, at: Date.now() });
      }
      await sleep(random.int(50, 200));
    }
  }
}

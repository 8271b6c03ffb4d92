/**
 * The phases of a trial that involve traffic: the sender's lanes sending (with faults struck at
 * random messages while they do), waiting until a burst has been offered, and settling. Every send
 * is written down in the ledger with how the host saw it end.
 */
import type { StrikeContext } from "./faults.js";
import { readInbox } from "./inbox-host.js";
import { SENDER } from "./kinds.js";
import type { Message } from "./ledger.js";
import type { McpHost } from "./host.js";
import type { Network } from "./network.js";
import { unmet } from "./promises.js";
import type { Random } from "./random.js";
import type { TrafficContext, TrafficKind } from "./traffic.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long no new item must have been offered before a trial counts as settled. */
const QUIET_MS = 500;

/** Counts sends as they start, so a strike can wait for "after message n". */
class Progress {
  private count = 0;
  private waiters: { at: number; wake: () => void }[] = [];

  started(): number {
    const index = this.count++;
    for (const w of this.waiters.filter((w) => w.at <= index)) w.wake();
    this.waiters = this.waiters.filter((w) => w.at > index);
    return index;
  }

  reached(at: number): Promise<void> {
    if (this.count > at) return Promise.resolve();
    return new Promise((wake) => this.waiters.push({ at, wake }));
  }
}

/** Sends one message from the sender's host and writes down how it ended. */
export async function send(ctx: TrafficContext, kind: TrafficKind, message: Message): Promise<Message> {
  await ctx.host(SENDER).send(message);
  kind.sent?.(message, ctx);
  ctx.ledger.note(`${message.id} ${kind.name} to ${message.to}: ${message.outcome} ${message.detail ?? ""}`.trimEnd());
  return message;
}

/** Faults to strike while traffic flows: `count` of them, each at a random message. */
export interface Strikes {
  readonly count: number;
  readonly random: Random;
  readonly net: Network;
  readonly strike: (ctx: StrikeContext) => Promise<void>;
}

/**
 * The sender's lanes send `messages` messages (ids `prefix` + n), and go on until every strike is
 * over; strikes come at random messages between the first and the last tenth. Returns the messages.
 */
export async function traffic(
  ctx: TrafficContext,
  kinds: readonly TrafficKind[],
  shape: { readonly prefix: string; readonly messages: number; readonly inFlight: number },
  strikes?: Strikes,
): Promise<Message[]> {
  const progress = new Progress();
  const sent: Message[] = [];
  let striking = strikes !== undefined && strikes.count > 0;
  const recipients = ctx.agents.filter((name) => name !== SENDER);
  const striker = (async () => {
    if (strikes === undefined) return;
    const { random, net } = strikes;
    const low = Math.floor(shape.messages * 0.1);
    const high = Math.floor(shape.messages * 0.9);
    const points = Array.from({ length: strikes.count }, () => random.int(low, high)).sort((a, b) => a - b);
    try {
      for (const point of points) {
        await progress.reached(point);
        await sleep(random.int(0, 30));
        await strikes.strike({ net, ledger: ctx.ledger, random, sender: SENDER, recipients });
      }
    } finally {
      striking = false;
    }
  })();
  const lanes = Array.from({ length: shape.inFlight }, () => ctx.random.fork()).map(async (lane) => {
    let index = progress.started();
    let refusals = 0;
    while (index < shape.messages || striking) {
      const ready = kinds.filter((k) => k.canStart?.(ctx) ?? true);
      const kind = lane.weighted(ready);
      const id = `${shape.prefix}${index}`;
      const { to, text } = kind.compose(id, ctx);
      const message = await send(ctx, kind, ctx.ledger.add({ id, traffic: kind.name, from: SENDER, to, text }));
      sent.push(message);
      // After refusals (the daemon or its router is away) a host waits longer and longer, up to a second.
      refusals = message.outcome === "refused" ? refusals + 1 : 0;
      await sleep(refusals > 0 ? Math.min(1_000, 50 * 2 ** refusals) : lane.int(0, 15));
      index = progress.started();
    }
  });
  // Every lane and the striker finish before a failure is passed on, so nothing sends after the trial.
  const failed = (await Promise.allSettled([striker, ...lanes])).find((r) => r.status === "rejected");
  if (failed !== undefined) throw failed.reason;
  return sent;
}

/**
 * Waits until the burst has been offered: every message that returned, to every host that reads over
 * MCP, and at least one of them to each webhook receiver (which is offered one item at a time, the
 * same one again and again while it refuses them).
 */
export async function offered(
  ctx: TrafficContext,
  kinds: readonly TrafficKind[],
  messages: readonly Message[],
  webhookConsumers: ReadonlySet<string>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pairs = messages
    .filter((m) => m.outcome === "returned")
    .flatMap((m) => kinds.find((k) => k.name === m.traffic)!.intended(m));
  const reads = pairs.filter((p) => !webhookConsumers.has(p.recipient));
  const hooks = [...webhookConsumers].map((name) => pairs.filter((p) => p.recipient === name));
  const done = () =>
    reads.every((p) => ctx.ledger.offered(p.recipient, p.key)) &&
    hooks.every((hook) => hook.length === 0 || hook.some((p) => ctx.ledger.offered(p.recipient, p.key)));
  while (!done() && Date.now() < deadline) await sleep(100);
}

/**
 * Waits until every delivery that must happen has, every kind is quiescent, every inbox is empty
 * and nothing new was offered for a while; returns what it still waited for at the timeout.
 */
export async function settle(
  ctx: TrafficContext,
  kinds: readonly TrafficKind[],
  hosts: ReadonlyMap<string, McpHost>,
  timeoutMs: number,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const waiting: string[] = [];
    const missing = unmet(ctx.ledger, kinds);
    if (missing.length > 0) waiting.push(`${missing.length} deliveries`);
    for (const kind of kinds) if (kind.quiescent?.(ctx) === false) waiting.push(`${kind.name} in flight`);
    for (const [name, host] of hosts) {
      const entries = await readInbox(host, ctx.ledger, ctx.identify);
      if (entries === undefined) waiting.push(`${name} unreachable`);
      else if (entries.length > 0) waiting.push(`${entries.length} pending at ${name}`);
    }
    if (Date.now() - ctx.ledger.quietSince < QUIET_MS) waiting.push("recent offers");
    if (waiting.length === 0 || Date.now() > deadline) return waiting;
    await sleep(250);
  }
}

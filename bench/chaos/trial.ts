/**
 * One crash trial: a fresh network of real processes, every traffic kind's setup, hosts that read and
 * acknowledge, then traffic from the sender with faults struck at random moments while it flows;
 * then settling (everything that must arrive has, every inbox is empty and quiet), a last crash of
 * every daemon at once, settling again, and the checks over everything that was seen. The trial
 * cleans up after itself; when a promise broke it keeps its directory (logs, data, journal).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { FaultKind, PreparedFault, StrikeContext } from "./faults.js";
import { McpHost } from "./host.js";
import { InboxHost, readInbox } from "./inbox-host.js";
import { SENDER, trafficKinds } from "./kinds.js";
import { Ledger, type Message, type Violation } from "./ledger.js";
import { Network } from "./network.js";
import { checkPromises, emptyCounts, unmet, type Counts } from "./promises.js";
import { Random } from "./random.js";
import type { AgentSpec, TrafficContext, TrafficKind } from "./traffic.js";

export interface TrialPlan {
  readonly fault: FaultKind;
  readonly seed: number;
  /** Sends at least this many messages; traffic goes on until every strike is over. */
  readonly messages: number;
  /** Sends in flight at once from the sender's host. */
  readonly inFlight: number;
  /** Faults struck per trial, each at a random message. */
  readonly strikes: number;
  /** How long settling may take before what is missing counts as lost. */
  readonly settleMs?: number;
  /** Keep the trial's directory even when every promise held. */
  readonly keep?: boolean;
}

export interface TrialReport {
  readonly fault: string;
  readonly seed: number;
  readonly counts: Counts;
  readonly violations: readonly Violation[];
  readonly ms: number;
  /** The faults struck while traffic flowed (the last crash of every daemon not included). */
  readonly struck: readonly string[];
  /** The trial's directory, when kept. */
  readonly dir: string | undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long no new item must have been offered before a trial counts as settled. */
const QUIET_MS = 500;
/** The chance that a host acknowledges an item when it reads it; the others stay pending a while. */
const ACK_PROBABILITY = 0.6;
/** Messages sent while hosts hold everything pending, just before the last crash. */
const BURST = 20;

/** One spec per agent: the sender's first, then each kind's, merged by name. */
export function mergeAgents(kinds: readonly TrafficKind[]): AgentSpec[] {
  const merged = new Map<string, AgentSpec>([[SENDER, { name: SENDER, consumer: "mcp" }]]);
  for (const spec of kinds.flatMap((k) => k.agents())) {
    const known = merged.get(spec.name);
    if (known !== undefined && known.consumer !== spec.consumer)
      throw new Error(`${spec.name} cannot be both a ${known.consumer} and a ${spec.consumer} consumer`);
    merged.set(spec.name, {
      name: spec.name,
      consumer: spec.consumer,
      args: [...(known?.args ?? []), ...(spec.args ?? [])],
      env: { ...known?.env, ...spec.env },
    });
  }
  return [...merged.values()];
}

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

export async function runTrial(plan: TrialPlan): Promise<TrialReport> {
  const started = Date.now();
  const dir = await mkdtemp(path.join(tmpdir(), `sh-chaos-${plan.fault.name}-`));
  const random = new Random(plan.seed);
  const streams = { fault: random.fork(), traffic: random.fork(), hosts: random.fork(), strikes: random.fork() };
  const ledger = new Ledger();
  const kinds = trafficKinds();
  const hosts = new Map<string, McpHost>();
  const readers: InboxHost[] = [];
  let net: Network | undefined;
  let fault: PreparedFault | undefined;
  let result: { counts: Counts; violations: Violation[] } = { counts: emptyCounts(), violations: [] };
  let struck: string[] = [];
  try {
    for (const kind of kinds) await kind.setup?.(dir);
    const agents = mergeAgents(kinds);
    const recipients = agents.map((a) => a.name).filter((name) => name !== SENDER);
    fault = await plan.fault.prepare(dir, streams.fault, recipients);
    ledger.note(`starting ${agents.length} daemons`);
    net = await Network.start(dir, ledger, fault.layout, agents);
    ledger.note("every daemon is linked");
    const network = net;
    for (const agent of agents) hosts.set(agent.name, new McpHost(network.daemon(agent.name)));
    let prepared = 0;
    let holding = false;
    const ctx: TrafficContext = {
      dir,
      sender: SENDER,
      agents: agents.map((a) => a.name),
      ledger,
      random: streams.traffic,
      holding: () => holding,
      host: (name) => hosts.get(name)!,
      daemon: (name) => network.daemon(name),
      identify: (recipient, item) => kinds.map((k) => k.identify(recipient, item)).find((key) => key !== undefined),
      send: async (kind, to, text) => {
        const id = `p${prepared++}`;
        return send(ctx, kind, ledger.add({ id, traffic: kind.name, from: SENDER, to, text: text(id) }));
      },
    };
    for (const kind of kinds) await kind.prepare?.(ctx);
    for (const agent of agents.filter((a) => a.consumer === "mcp")) {
      readers.push(
        new InboxHost({
          host: hosts.get(agent.name)!,
          ledger,
          random: streams.hosts.fork(),
          identify: ctx.identify,
          react: async (recipient, entry) => {
            for (const kind of kinds) await kind.react?.(recipient, entry, ctx);
          },
          ackProbability: ACK_PROBABILITY,
          holding: ctx.holding,
        }),
      );
    }
    for (const reader of readers) reader.start();
    ledger.note("traffic starts");
    const strike = (struck: StrikeContext) => fault!.strike(struck);
    await traffic(ctx, kinds, { prefix: "m", messages: plan.messages, inFlight: plan.inFlight }, strike, {
      net: network,
      strikes: plan.strikes,
      random: streams.strikes,
    });
    struck = ledger.faults.map((f) => `${f.process} ${f.what}`);
    ledger.note("traffic is over; settling");
    const waiting = await settle(ctx, kinds, hosts, plan.settleMs ?? 60_000);
    if (waiting.length > 0) ledger.note(`settling timed out waiting for ${waiting.join(", ")}`);

    // The last check: hosts stop acknowledging, a burst arrives and is read, every daemon is
    // killed at once, and what was pending must come back with the same tokens and payloads.
    holding = true;
    ledger.note("last check: hosts hold what they read; a burst of traffic");
    const burst = await traffic(ctx, kinds, { prefix: "b", messages: BURST, inFlight: plan.inFlight });
    await offered(ctx, kinds, burst, 20_000);
    ledger.note("every daemon killed at once and started again");
    await network.crashAllDaemons();
    holding = false;
    const still = await settle(ctx, kinds, hosts, plan.settleMs ?? 60_000);
    if (still.length > 0) ledger.note(`settling after the last crash timed out waiting for ${still.join(", ")}`);
    for (const reader of readers) await reader.stop();
    const extra = (await Promise.all(kinds.map((k) => k.check?.(ctx) ?? Promise.resolve([])))).flat();
    result = checkPromises(ledger, kinds, extra);
    ledger.note("checked");
  } catch (error) {
    ledger.note(`the trial failed: ${String(error)}`);
    result = checkPromises(ledger, kinds, [
      { kind: "harness", detail: `the trial could not run: ${error instanceof Error ? error.stack : String(error)}` },
    ]);
  } finally {
    for (const reader of readers) await reader.stop();
    for (const host of hosts.values()) await host.close();
    for (const kind of kinds) await kind.teardown?.().catch(() => undefined);
    await net?.close();
    await fault?.cleanup().catch((error: unknown) => ledger.note(`cleanup failed: ${String(error)}`));
    ledger.note("stopped and cleaned up");
  }
  const keep = plan.keep === true || result.violations.length > 0;
  if (keep) await writeFile(path.join(dir, "journal.log"), `${ledger.journal.join("\n")}\n`);
  else await rm(dir, { recursive: true, force: true });
  return {
    fault: plan.fault.name,
    seed: plan.seed,
    ...result,
    ms: Date.now() - started,
    struck,
    dir: keep ? dir : undefined,
  };
}

async function send(ctx: TrafficContext, kind: TrafficKind, message: Message): Promise<Message> {
  await ctx.host(SENDER).send(message);
  kind.sent?.(message, ctx);
  ctx.ledger.note(`${message.id} ${kind.name} to ${message.to}: ${message.outcome} ${message.detail ?? ""}`.trimEnd());
  return message;
}

interface Strikes {
  readonly net: Network;
  readonly strikes: number;
  readonly random: Random;
}

/**
 * The sender's lanes send `messages` messages (ids `prefix` + n), and go on until every strike is
 * over; strikes come at random messages between the first and the last tenth. Returns the messages.
 */
async function traffic(
  ctx: TrafficContext,
  kinds: readonly TrafficKind[],
  shape: { readonly prefix: string; readonly messages: number; readonly inFlight: number },
  strike?: (ctx: StrikeContext) => Promise<void>,
  strikes?: Strikes,
): Promise<Message[]> {
  const progress = new Progress();
  const sent: Message[] = [];
  let striking = strike !== undefined && strikes !== undefined && strikes.strikes > 0;
  const recipients = ctx.agents.filter((name) => name !== SENDER);
  const striker = (async () => {
    if (!striking || strike === undefined || strikes === undefined) return;
    const { random } = strikes;
    const low = Math.floor(shape.messages * 0.1);
    const high = Math.floor(shape.messages * 0.9);
    const points = Array.from({ length: strikes.strikes }, () => random.int(low, high)).sort((a, b) => a - b);
    try {
      for (const point of points) {
        await progress.reached(point);
        await sleep(random.int(0, 30));
        await strike({ net: strikes.net, ledger: ctx.ledger, random, sender: SENDER, recipients });
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
  await Promise.all([striker, ...lanes]);
  return sent;
}

/** Waits until every recipient was offered every message that returned (accepted or not). */
async function offered(
  ctx: TrafficContext,
  kinds: readonly TrafficKind[],
  messages: readonly Message[],
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pairs = messages
    .filter((m) => m.outcome === "returned")
    .flatMap((m) => kinds.find((k) => k.name === m.traffic)!.intended(m));
  while (pairs.some((p) => !ctx.ledger.offered(p.recipient, p.key)) && Date.now() < deadline) await sleep(100);
}

/**
 * Waits until every delivery that must happen has, every kind is quiescent, every inbox is empty
 * and nothing new was offered for a while; returns what it still waited for at the timeout.
 */
async function settle(
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

/**
 * One crash trial: a fresh network of real processes, every traffic kind's setup, hosts that read and
 * acknowledge, then traffic from the sender with faults struck at random moments while it flows;
 * then settling (everything that must arrive has, every inbox is empty and quiet), a last crash of
 * every daemon at once, settling again, a clean stop, and the checks over everything that was seen.
 * The trial cleans up after itself, also when interrupted; when a promise broke it keeps its
 * directory (logs, data, journal).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { FaultKind, PreparedFault } from "./faults.js";
import { McpHost } from "./host.js";
import { InboxHost } from "./inbox-host.js";
import { cleaningUpOnInterrupt } from "./interrupt.js";
import { SENDER, trafficKinds } from "./kinds.js";
import { Ledger, type Violation } from "./ledger.js";
import { Network } from "./network.js";
import { offered, send, settle, traffic } from "./phases.js";
import { checkPromises, type Counts } from "./promises.js";
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

export async function runTrial(plan: TrialPlan): Promise<TrialReport> {
  const dir = await mkdtemp(path.join(tmpdir(), `sh-chaos-${plan.fault.name}-`));
  return new Trial(plan, dir).run();
}

class Trial {
  private readonly started = Date.now();
  private readonly random: Random;
  private readonly streams: Record<"fault" | "traffic" | "hosts" | "strikes", Random>;
  private readonly ledger = new Ledger();
  private readonly kinds = trafficKinds();
  private readonly hosts = new Map<string, McpHost>();
  private readonly readers: InboxHost[] = [];
  private net: Network | undefined;
  private fault: PreparedFault | undefined;
  private holding = false;
  private struck: string[] = [];

  constructor(
    private readonly plan: TrialPlan,
    private readonly dir: string,
  ) {
    this.random = new Random(plan.seed);
    const fork = () => this.random.fork();
    this.streams = { fault: fork(), traffic: fork(), hosts: fork(), strikes: fork() };
  }

  async run(): Promise<TrialReport> {
    let result: { counts: Counts; violations: Violation[] };
    try {
      const interrupted = async () => {
        await this.teardown();
        await writeFile(path.join(this.dir, "journal.log"), `${this.ledger.journal.join("\n")}\n`);
        process.stderr.write(`the interrupted trial's directory: ${this.dir}\n`);
      };
      const extra = await cleaningUpOnInterrupt(interrupted, () => this.phases());
      result = checkPromises(this.ledger, this.kinds, extra);
    } catch (error) {
      this.ledger.note(`the trial failed: ${String(error)}`);
      const detail = `the trial could not run: ${error instanceof Error ? error.stack : String(error)}`;
      result = checkPromises(this.ledger, this.kinds, [{ kind: "harness", detail }]);
    } finally {
      await this.teardown();
    }
    const keep = this.plan.keep === true || result.violations.length > 0;
    if (keep) await writeFile(path.join(this.dir, "journal.log"), `${this.ledger.journal.join("\n")}\n`);
    else await rm(this.dir, { recursive: true, force: true });
    return {
      fault: this.plan.fault.name,
      seed: this.plan.seed,
      ...result,
      ms: Date.now() - this.started,
      struck: this.struck,
      dir: keep ? this.dir : undefined,
    };
  }

  /** Everything up to the clean stop; returns the violations of the kinds' own checks. */
  private async phases(): Promise<Violation[]> {
    const { ledger, kinds, plan } = this;
    for (const kind of kinds) await kind.setup?.(this.dir);
    const agents = mergeAgents(kinds);
    const recipients = agents.map((a) => a.name).filter((name) => name !== SENDER);
    const fault = await plan.fault.prepare(this.dir, this.streams.fault, recipients);
    this.fault = fault;
    ledger.note(`starting ${agents.length} daemons`);
    const net = await Network.start(this.dir, ledger, fault.layout, agents);
    this.net = net;
    ledger.note("every daemon is linked");
    for (const agent of agents) this.hosts.set(agent.name, new McpHost(net.daemon(agent.name)));
    const ctx = this.context(agents, net);
    for (const kind of kinds) await kind.prepare?.(ctx);
    for (const agent of agents.filter((a) => a.consumer === "mcp")) this.readers.push(this.reader(agent.name, ctx));
    for (const reader of this.readers) reader.start();

    ledger.note("traffic starts");
    const shape = { prefix: "m", messages: plan.messages, inFlight: plan.inFlight };
    await traffic(ctx, kinds, shape, {
      count: plan.strikes,
      random: this.streams.strikes,
      net,
      strike: (struck) => fault.strike(struck),
    });
    this.struck = ledger.faults.map((f) => `${f.process} ${f.what}`);
    ledger.note("traffic is over; settling");
    this.noteWaiting("settling", await settle(ctx, kinds, this.hosts, plan.settleMs ?? 60_000));

    // The last check: hosts stop acknowledging, a burst arrives and is read, every daemon is
    // killed at once, and what was pending must come back with the same tokens and payloads.
    this.holding = true;
    ledger.note("last check: hosts hold what they read; a burst of traffic");
    const burst = await traffic(ctx, kinds, { prefix: "b", messages: BURST, inFlight: plan.inFlight });
    const webhookConsumers = new Set(agents.filter((a) => a.consumer === "webhook").map((a) => a.name));
    await offered(ctx, kinds, burst, webhookConsumers, 20_000);
    ledger.note("every daemon killed at once and started again");
    await (fault.crashAll?.(net, ledger) ?? net.crashAllDaemons());
    this.holding = false;
    this.noteWaiting("settling after the last crash", await settle(ctx, kinds, this.hosts, plan.settleMs ?? 60_000));

    for (const reader of this.readers) await reader.stop();
    const extra = (await Promise.all(kinds.map((k) => k.check?.(ctx) ?? Promise.resolve([])))).flat();
    await net.close();
    ledger.note("checked and stopped");
    return extra;
  }

  private context(agents: readonly AgentSpec[], net: Network): TrafficContext {
    let prepared = 0;
    const ctx: TrafficContext = {
      dir: this.dir,
      sender: SENDER,
      agents: agents.map((a) => a.name),
      ledger: this.ledger,
      random: this.streams.traffic,
      holding: () => this.holding,
      host: (name) => this.hosts.get(name)!,
      daemon: (name) => net.daemon(name),
      identify: (recipient, item) =>
        this.kinds.map((k) => k.identify(recipient, item)).find((key) => key !== undefined),
      send: (kind, to, text) => {
        const id = `p${prepared++}`;
        return send(ctx, kind, this.ledger.add({ id, traffic: kind.name, from: SENDER, to, text: text(id) }));
      },
    };
    return ctx;
  }

  private reader(name: string, ctx: TrafficContext): InboxHost {
    return new InboxHost({
      host: this.hosts.get(name)!,
      ledger: this.ledger,
      random: this.streams.hosts.fork(),
      identify: ctx.identify,
      react: async (recipient, entry) => {
        for (const kind of this.kinds) await kind.react?.(recipient, entry, ctx);
      },
      ackProbability: ACK_PROBABILITY,
      holding: ctx.holding,
    });
  }

  private noteWaiting(phase: string, waiting: readonly string[]): void {
    if (waiting.length > 0) this.ledger.note(`${phase} timed out waiting for ${waiting.join(", ")}`);
  }

  /** Stops hosts and processes and removes the schema or tmpfs; safe to run twice. */
  private async teardown(): Promise<void> {
    for (const reader of this.readers) await reader.stop();
    for (const host of this.hosts.values()) await host.close();
    for (const kind of this.kinds) await kind.teardown?.().catch(() => undefined);
    await this.net?.close();
    const fault = this.fault;
    this.fault = undefined;
    await fault?.cleanup().catch((error: unknown) => this.ledger.note(`cleanup failed: ${String(error)}`));
  }
}

/**
 * The kinds of trial, one per fault: kill -9 of the sender, of the router, of a recipient, of one of
 * two routers sharing a PostgreSQL schema, and a full disk at a recipient (with a crash on top half
 * the time). Each lays out its network (a fresh schema, a tmpfs), strikes at random moments while
 * traffic flows, and cleans up after itself whatever happened.
 */
import path from "node:path";
import pg from "pg";
import { Tmpfs } from "./disk.js";
import { POWER_CUTS } from "./power.js";
import type { Ledger } from "./ledger.js";
import type { Layout, Network } from "./network.js";
import type { Random } from "./random.js";

export const POSTGRES = "postgres://root@127.0.0.1:5432/test";

export interface StrikeContext {
  readonly net: Network;
  readonly ledger: Ledger;
  readonly random: Random;
  readonly sender: string;
  /** Every agent but the sender. */
  readonly recipients: readonly string[];
}

export interface PreparedFault {
  readonly layout: Layout;
  /** One fault: a process killed and restarted, or a disk filled and freed. Resolves when it is over. */
  strike(ctx: StrikeContext): Promise<void>;
  /** The last crash of every daemon at once, when it is more than kill -9 (a power cut). */
  crashAll?(net: Network, ledger: Ledger): Promise<void>;
  cleanup(): Promise<void>;
}

export interface FaultKind {
  readonly name: string;
  /** What a strike does, for the report and the test names. */
  readonly summary: string;
  prepare(dir: string, random: Random, recipients: readonly string[]): Promise<PreparedFault>;
}

const ONE_ROUTER: Layout = { routers: 1, homeOf: () => 0 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long a killed process stays dead before it is started again. */
const downtime = (random: Random) => random.int(0, 1_000);
const nothing = () => Promise.resolve();

const sender: FaultKind = {
  name: "sender",
  summary: "the sender's daemon is killed with SIGKILL",
  prepare: () =>
    Promise.resolve({
      layout: ONE_ROUTER,
      strike: (ctx) => ctx.net.crash(ctx.net.daemon(ctx.sender), downtime(ctx.random)),
      cleanup: nothing,
    }),
};

const router: FaultKind = {
  name: "router",
  summary: "the router is killed with SIGKILL",
  prepare: () =>
    Promise.resolve({
      layout: ONE_ROUTER,
      strike: (ctx) => ctx.net.crash(ctx.net.routers[0]!, downtime(ctx.random)),
      cleanup: nothing,
    }),
};

const recipient: FaultKind = {
  name: "recipient",
  summary: "a recipient's daemon (an MCP reader or the webhook consumer) is killed with SIGKILL",
  prepare: () =>
    Promise.resolve({
      layout: ONE_ROUTER,
      strike: (ctx) => ctx.net.crash(ctx.net.daemon(ctx.random.pick(ctx.recipients)), downtime(ctx.random)),
      cleanup: nothing,
    }),
};

const postgres: FaultKind = {
  name: "postgres",
  summary: "one of two routers sharing a PostgreSQL schema is killed with SIGKILL",
  prepare(_dir, random) {
    const schema = `chaos_${process.pid}_${random.seed}_${Date.now()}`;
    return Promise.resolve({
      layout: { routers: 2, database: `${POSTGRES}?schema=${schema}`, homeOf: (_agent, index) => index % 2 },
      strike: (ctx) => ctx.net.crash(ctx.random.pick(ctx.net.routers), downtime(ctx.random)),
      async cleanup() {
        const client = new pg.Client({ connectionString: POSTGRES });
        await client.connect();
        try {
          await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        } finally {
          await client.end();
        }
      },
    });
  },
};

const fullDisk: FaultKind = {
  name: "full-disk",
  summary:
    "a recipient's data directory (a tmpfs) fills up and is freed, and half the time its daemon is killed meanwhile",
  async prepare(dir, random, recipients) {
    const victim = random.pick(recipients);
    const disk = await Tmpfs.mount(path.join(dir, `${victim}-disk`), 32);
    return {
      layout: { ...ONE_ROUTER, dataDirOf: (agent) => (agent === victim ? path.join(disk.mount, agent) : undefined) },
      async strike(ctx) {
        const daemon = ctx.net.daemon(victim);
        const full = ctx.ledger.openFault(victim, "disk-full");
        await disk.fill();
        await sleep(ctx.random.int(200, 1_500));
        const crash = ctx.random.chance(0.5);
        const killed = crash ? ctx.ledger.openFault(victim, "killed") : undefined;
        if (crash) await daemon.kill();
        await disk.free();
        ctx.ledger.closeFault(full);
        if (killed !== undefined) {
          await ctx.net.restart(daemon);
          ctx.ledger.closeFault(killed);
        }
      },
      cleanup: () => disk.unmount(),
    };
  },
};

/** The SIGKILL kinds, which `npm run chaos` runs by default. */
export const FAULTS: readonly FaultKind[] = [sender, router, recipient, postgres, fullDisk];

/** Kinds by name; `power` names every power-cut kind. */
export function faultsNamed(name: string): readonly FaultKind[] {
  if (name === "power") return POWER_CUTS;
  const fault = [...FAULTS, ...POWER_CUTS].find((f) => f.name === name);
  if (fault === undefined) {
    const known = [...FAULTS, ...POWER_CUTS].map((f) => f.name).join(", ");
    throw new Error(`no fault kind "${name}"; the kinds are ${known}, and power (every power-cut kind)`);
  }
  return [fault];
}

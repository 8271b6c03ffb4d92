/**
 * The power-cut kinds: the data directories of one machine's processes are lossyfs mounts, and a
 * strike kills those processes with SIGKILL, drops every write their disks did not fsync, mounts
 * the disks again and starts the processes on what survived. The machine is the sender's, the
 * router's (SQLite), a recipient's, or one that runs the router and a recipient together.
 */
import path from "node:path";
import type { FaultKind, PreparedFault } from "./faults.js";
import { Lossyfs } from "./lossyfs.js";
import type { Ledger } from "./ledger.js";
import type { Network } from "./network.js";
import type { Server } from "./processes.js";
import type { Random } from "./random.js";

const ROUTER = "router";

/** What one machine runs: the router (or not) and some agents' daemons. */
type Machine = (sender: string, recipients: readonly string[], random: Random) => readonly string[];

function powerCut(name: string, summary: string, machine: Machine, sender = "alice"): FaultKind {
  return {
    name,
    summary,
    async prepare(dir, random, recipients): Promise<PreparedFault> {
      const disks = new Map<string, Lossyfs>();
      try {
        for (const process of machine(sender, recipients, random))
          disks.set(process, await Lossyfs.mount(path.join(dir, `${process}-disk`)));
      } catch (error) {
        for (const disk of disks.values()) await disk.dispose();
        throw error;
      }
      const servers = (net: Network): Server[] =>
        [...disks.keys()].map((p) => (p === ROUTER ? net.routers[0]! : net.daemon(p)));
      const cut = (ledger: Ledger) => async () => {
        await Promise.all([...disks.values()].map((disk) => disk.cut()));
        for (const [process, disk] of disks) ledger.note(`${process}'s disk dropped ${disk.dropped}`);
      };
      return {
        layout: {
          routers: 1,
          homeOf: () => 0,
          dataDirOf: (agent) => disks.get(agent)?.mount,
          routerDataDirOf: (router) => disks.get(router)?.mount,
        },
        strike: (ctx) =>
          ctx.net.crashTogether(servers(ctx.net), "power-cut", cut(ctx.ledger), ctx.random.int(0, 1_000)),
        // The last check: every daemon killed, and the machine's power cut as well.
        async crashAll(net, ledger) {
          const victims = servers(net);
          const others = [...net.daemons.values()].filter((d) => !victims.includes(d));
          await Promise.all([
            net.crashTogether(victims, "power-cut", cut(ledger)),
            net.crashTogether(others, "killed"),
          ]);
        },
        async cleanup() {
          for (const disk of disks.values()) await disk.unmount().catch(() => disk.dispose());
        },
      };
    },
  };
}

export const POWER_CUTS: readonly FaultKind[] = [
  powerCut("power-sender", "the power of the sender's machine is cut", (sender) => [sender]),
  powerCut("power-router", "the power of the router's machine (SQLite) is cut", () => [ROUTER]),
  powerCut(
    "power-recipient",
    "the power of a recipient's machine (an MCP reader or the webhook consumer) is cut",
    (_sender, recipients, random) => [random.pick(recipients)],
  ),
  powerCut(
    "power-router-recipient",
    "the power of a machine running the router and a recipient is cut",
    (_sender, recipients, random) => [ROUTER, random.pick(recipients)],
  ),
];

/**
 * One trial's network: one or two routers (SQLite, or two sharing a PostgreSQL schema) and a daemon
 * per agent, every one a real process with its own data directory. `crash` is kill -9, a pause,
 * and a restart on the same data and port; a process that dies on its own is reported as an
 * incident and started again, so the trial goes on and the report says what happened.
 */
import path from "node:path";
import type { Ledger } from "./ledger.js";
import { DaemonServer, RouterServer, type Server } from "./processes.js";
import type { AgentSpec } from "./traffic.js";

export interface Layout {
  /** How many routers; with two they share `database`. */
  readonly routers: 1 | 2;
  /** `--database` for every router (PostgreSQL); SQLite in each router's data directory when absent. */
  readonly database?: string;
  /** Which router an agent's daemon links to. */
  homeOf(agent: string, index: number): number;
  /** Where an agent keeps its data, when not in the trial directory (a tmpfs, a lossyfs mount). */
  dataDirOf?(agent: string): string | undefined;
  /** Where a router keeps its data, when not in the trial directory (a lossyfs mount). */
  routerDataDirOf?(name: string): string | undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Network {
  readonly routers: RouterServer[] = [];
  readonly daemons = new Map<string, DaemonServer>();
  private closing = false;

  private constructor(
    private readonly dir: string,
    private readonly ledger: Ledger,
  ) {}

  static async start(dir: string, ledger: Ledger, layout: Layout, agents: readonly AgentSpec[]): Promise<Network> {
    const net = new Network(dir, ledger);
    for (let i = 0; i < layout.routers; i++) {
      const name = layout.routers === 1 ? "router" : `router-${i + 1}`;
      const args = ["router", "--data", layout.routerDataDirOf?.(name) ?? path.join(dir, name)];
      if (layout.database !== undefined) args.push("--database", layout.database);
      const router = new RouterServer({ name, args, logFile: path.join(dir, `${name}.log`) });
      net.watch(router);
      net.routers.push(router);
    }
    // Routers on one PostgreSQL schema migrate it; the first finishes before the second starts.
    for (const router of net.routers) await router.start();
    agents.forEach((agent, index) => {
      const dataDir = layout.dataDirOf?.(agent.name) ?? path.join(dir, agent.name);
      const home = net.routers[layout.homeOf(agent.name, index)]!;
      const args = ["daemon", "--name", agent.name, "--router", home.url, "--data", dataDir, ...(agent.args ?? [])];
      const daemon = new DaemonServer(
        { name: agent.name, args, env: agent.env, logFile: path.join(dir, `${agent.name}.log`) },
        dataDir,
      );
      net.watch(daemon);
      net.daemons.set(agent.name, daemon);
    });
    await Promise.all([...net.daemons.values()].map((d) => d.start()));
    await Promise.all([...net.daemons.values()].map((d) => d.linked()));
    return net;
  }

  daemon(name: string): DaemonServer {
    const daemon = this.daemons.get(name);
    if (daemon === undefined) throw new Error(`no daemon ${name} in this trial`);
    return daemon;
  }

  private watch(server: Server): void {
    server.onUnexpectedExit = (s, code) => {
      if (this.closing) return;
      this.ledger.incident("crashed", `${s.name} exited on its own with code ${code} (log: ${s.spec.logFile})`);
      const window = this.ledger.openFault(s.name, "killed");
      void sleep(200)
        .then(() => this.restart(s))
        .then(() => this.ledger.closeFault(window));
    };
  }

  /** Starts a stopped server again, retrying while its old port or its disk is not yet free. */
  async restart(server: Server): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        if (!server.running) await server.start();
        return;
      } catch (error) {
        if (attempt >= 20) throw error;
        this.ledger.note(`${server.name} did not start (attempt ${attempt}): ${String(error).slice(0, 200)}`);
        await sleep(250);
      }
    }
  }

  /** kill -9, down for `downMs`, then started again on the same data and port. */
  async crash(server: Server, downMs: number): Promise<void> {
    const window = this.ledger.openFault(server.name, "killed");
    await server.kill();
    await sleep(downMs);
    await this.restart(server);
    this.ledger.closeFault(window);
  }

  /** Crashes every daemon at once and starts them all again (the trial's last check). */
  async crashAllDaemons(): Promise<void> {
    await this.crashTogether([...this.daemons.values()], "killed");
  }

  /**
   * kill -9 of `servers` at once, then `meanwhile` (a power cut drops what their disks did not sync),
   * down for `downMs`, then started again, routers first; daemons are back once linked.
   */
  async crashTogether(
    servers: readonly Server[],
    what: "killed" | "power-cut",
    meanwhile: () => Promise<void> = () => Promise.resolve(),
    downMs = 0,
  ): Promise<void> {
    const windows = servers.map((s) => this.ledger.openFault(s.name, what));
    await Promise.all(servers.map((s) => s.kill()));
    await meanwhile();
    await sleep(downMs);
    const routers = servers.filter((s) => s instanceof RouterServer);
    const daemons = servers.filter((s) => s instanceof DaemonServer);
    for (const router of routers) await this.restart(router);
    await Promise.all(daemons.map((d) => this.restart(d)));
    await Promise.all(daemons.map((d) => d.linked()));
    for (const window of windows) this.ledger.closeFault(window);
  }

  /** Stops everything cleanly (SIGTERM): daemons first, then routers. A process that hangs is reported. */
  async close(): Promise<void> {
    this.closing = true;
    const stop = async (server: Server) => {
      if (!(await server.stop())) this.ledger.incident("hung", `${server.name} did not stop on SIGTERM`);
    };
    await Promise.all([...this.daemons.values()].map(stop));
    await Promise.all(this.routers.map(stop));
  }
}

/**
 * A network for a test file: one router and named daemons as real processes, each with an MCP
 * client on its runtime token. `close()` stops everything and removes the data directories.
 */
import { connect, tool, type Connected } from "./mcp.js";
import { DaemonProcess, removeDirs, RouterProcess, type DaemonOptions } from "./processes.js";

export interface Agent {
  daemon: DaemonProcess;
  mcp: Connected;
}

export class Network {
  readonly agents = new Map<string, Agent>();
  private readonly dirs: string[] = [];

  private constructor(public router: RouterProcess) {
    this.dirs.push(router.dataDir);
  }

  static async start(
    names: readonly string[],
    options: Partial<DaemonOptions> & {
      database?: string;
      routerArgs?: readonly string[];
      routerEnv?: NodeJS.ProcessEnv;
    } = {},
  ): Promise<Network> {
    const network = new Network(
      await RouterProcess.start({ database: options.database, extraArgs: options.routerArgs, env: options.routerEnv }),
    );
    await Promise.all(names.map((name) => network.add(name, options)));
    return network;
  }

  async add(name: string, options: Partial<DaemonOptions> = {}): Promise<Agent> {
    const daemon = await DaemonProcess.start({ ...options, name, router: this.router.url });
    this.dirs.push(daemon.dataDir);
    await daemon.linked();
    const agent = { daemon, mcp: await connect(daemon.mcpUrl, daemon.runtimeToken) };
    this.agents.set(name, agent);
    return agent;
  }

  agent(name: string): Agent {
    const agent = this.agents.get(name);
    if (agent === undefined) throw new Error(`no agent ${name} in this network`);
    return agent;
  }

  async stop(name: string): Promise<void> {
    const agent = this.agent(name);
    await agent.mcp.close();
    await agent.daemon.stop();
  }

  async restart(name: string, overrides: Partial<DaemonOptions> = {}): Promise<Agent> {
    const agent = this.agent(name);
    await agent.mcp.close().catch(() => undefined);
    const daemon = await agent.daemon.restart(overrides);
    await daemon.linked();
    const restarted = { daemon, mcp: await connect(daemon.mcpUrl, daemon.runtimeToken) };
    this.agents.set(name, restarted);
    return restarted;
  }

  /** Sends through an agent's send_message tool; the result or a thrown error. */
  send(from: string, to: string, text: string, meta?: Record<string, unknown>) {
    return tool(this.agent(from).mcp.client, "send_message", { to, text }, meta);
  }

  async close(): Promise<void> {
    for (const agent of this.agents.values()) {
      await agent.mcp.close().catch(() => undefined);
      await agent.daemon.stop();
    }
    await this.router.stop();
    removeDirs(...this.dirs);
  }
}

export interface InboxItem {
  deliveryToken: string;
  item: Record<string, any>;
  guidance?: unknown;
}

/** Every pending item of an agent's inbox (all pages). */
export async function readAll(agent: Agent): Promise<InboxItem[]> {
  const items: InboxItem[] = [];
  let cursor: string | undefined;
  do {
    const page = (await tool(agent.mcp.client, "read_inbox", cursor === undefined ? {} : { cursor })) as {
      items: InboxItem[];
      nextCursor?: string;
    };
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return items;
}

/** Waits until the agent's inbox holds at least `count` items, and returns them. */
export async function waitForItems(agent: Agent, count: number, timeoutMs = 20_000): Promise<InboxItem[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const items = await readAll(agent);
    if (items.length >= count) return items;
    if (Date.now() > deadline)
      throw new Error(`expected ${count} items, found ${items.length}: ${JSON.stringify(items)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until the agent's inbox holds at least `count` items matching `predicate`. */
export async function waitFor(
  agent: Agent,
  predicate: (entry: InboxItem) => boolean,
  count = 1,
  timeoutMs = 20_000,
): Promise<InboxItem[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const items = (await readAll(agent)).filter(predicate);
    if (items.length >= count) return items;
    if (Date.now() > deadline) throw new Error(`expected ${count} matching items, found ${items.length}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits for `count` items of one kind. */
export function waitForKind(agent: Agent, kind: string, count = 1, timeoutMs = 20_000): Promise<InboxItem[]> {
  return waitFor(agent, (entry) => entry.item.kind === kind, count, timeoutMs);
}

/**
 * A real OpenClaw gateway for one test file: a fresh state directory, home and config under a
 * temporary folder, the plugin installed from its npm-pack tarball exactly as an owner installs
 * it, a fake model, and the gateway run headless on loopback. The gateway runs in its own
 * process group; stopping it sends SIGTERM and, since a gateway draining a run ignores further
 * signals (research/openclaw.md §9), SIGKILL to the whole group after a grace period.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { hostEnv, type OpenClawHost } from "./host-install.js";
import { deepMerge, readWalkthrough } from "./readme-walkthrough.js";

export interface GatewayOptions {
  readonly host: OpenClawHost;
  /** The plugin's npm-pack tarball. */
  readonly tarball: string;
  readonly dir: string;
  readonly modelBaseUrl: string;
  /** The `channels.social-harness` section. */
  readonly channel: Readonly<Record<string, unknown>>;
}

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function runCli(options: GatewayOptions, env: NodeJS.ProcessEnv, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.host.node, [options.host.openclaw, ...args], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve(output) : reject(new Error(`openclaw ${args.join(" ")} exited with ${code}\n${output}`)),
    );
  });
}

export class Gateway {
  private output = "";
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  private constructor(
    readonly options: GatewayOptions,
    readonly env: NodeJS.ProcessEnv,
    readonly configPath: string,
    readonly port: number,
    private readonly runArgs: readonly string[] = ["gateway", "run", "--port", String(port), "--verbose"],
  ) {}

  private static async prepare(options: GatewayOptions) {
    const { dir } = options;
    for (const sub of ["state", "home", "workspace"]) mkdirSync(path.join(dir, sub), { recursive: true });
    const configPath = path.join(dir, "openclaw.json");
    const env = hostEnv(options.host, {
      ...process.env,
      HOME: path.join(dir, "home"),
      OPENCLAW_STATE_DIR: path.join(dir, "state"),
      OPENCLAW_CONFIG_PATH: configPath,
      NO_COLOR: "1",
    });
    return { configPath, env, port: await freePort() };
  }

  /**
   * Follows the README's walk-through (readme-walkthrough.ts) as written, replacing only the
   * gateway's port, the model server's address, the paths and the daemon's endpoint and token file.
   */
  static async fromReadme(options: GatewayOptions): Promise<Gateway> {
    const { dir } = options;
    const { configPath, env, port } = await Gateway.prepare(options);
    const walkthrough = readWalkthrough();
    const providers = ((walkthrough.config.models as Record<string, unknown>).providers ?? {}) as Record<
      string,
      unknown
    >;
    const config = deepMerge(walkthrough.config, {
      gateway: { port },
      models: {
        providers: Object.fromEntries(Object.keys(providers).map((id) => [id, { baseUrl: options.modelBaseUrl }])),
      },
      agents: { defaults: { workspace: path.join(dir, "workspace") } },
      logging: { file: path.join(dir, "openclaw.log") },
    });
    writeFileSync(configPath, JSON.stringify(config, null, 2));
    const tarball = walkthrough.install.find((arg) => arg.startsWith("npm-pack:"));
    if (tarball === undefined || path.basename(tarball) !== path.basename(options.tarball)) {
      throw new Error(`the README installs ${tarball}, but npm pack made ${path.basename(options.tarball)}`);
    }
    await runCli(
      options,
      env,
      walkthrough.install.map((arg) => (arg === tarball ? `npm-pack:${options.tarball}` : arg)),
    );
    const written = JSON.parse(readFileSync(configPath, "utf8")) as Record<string, unknown>;
    const channel = deepMerge(walkthrough.channel, { channels: { "social-harness": options.channel } });
    writeFileSync(configPath, JSON.stringify(deepMerge(written, channel), null, 2));
    const gateway = new Gateway(options, env, configPath, port, walkthrough.run);
    gateway.installedConfig = written;
    await gateway.boot();
    return gateway;
  }

  /** The config as the plugin install left it (README walk-through only). */
  installedConfig: Record<string, unknown> = {};

  /** Writes the config, installs the plugin from its tarball and starts the gateway. */
  static async start(options: GatewayOptions): Promise<Gateway> {
    const { dir } = options;
    const { configPath, env, port } = await Gateway.prepare(options);
    const config: Record<string, unknown> = {
      gateway: { mode: "local", port, bind: "loopback", auth: { mode: "none" } },
      models: {
        mode: "replace",
        catalogRefresh: { enabled: false },
        providers: {
          fake: {
            baseUrl: options.modelBaseUrl,
            apiKey: "sk-local",
            api: "openai-completions",
            models: [
              {
                id: "fake-1",
                name: "Fake",
                input: ["text"],
                reasoning: false,
                contextWindow: 200_000,
                maxTokens: 4_096,
                cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
              },
            ],
          },
        },
      },
      agents: { defaults: { model: { primary: "fake/fake-1" }, workspace: path.join(dir, "workspace") } },
      tools: { toolSearch: false },
      messages: { visibleReplies: "message_tool", groupChat: { visibleReplies: "message_tool" } },
      session: { dmScope: "per-channel-peer" },
      logging: { file: path.join(dir, "openclaw.log") },
    };
    writeFileSync(configPath, JSON.stringify(config, null, 2));
    // The channel section validates only once the plugin is known, so it is added after the install.
    await runCli(options, env, [
      "plugins",
      "install",
      `npm-pack:${options.tarball}`,
      "--force",
      "--accept-capabilities",
    ]);
    const installed = JSON.parse(readFileSync(configPath, "utf8")) as {
      plugins: { entries: Record<string, Record<string, unknown>> };
    };
    // The plugin sees agent runs end only with conversation access (OpenClaw's docs/plugins/hooks.md).
    const entry = installed.plugins.entries["social-harness"];
    installed.plugins.entries["social-harness"] = { ...entry, hooks: { allowConversationAccess: true } };
    writeFileSync(
      configPath,
      JSON.stringify({ ...installed, channels: { "social-harness": options.channel } }, null, 2),
    );
    const gateway = new Gateway(options, env, configPath, port);
    await gateway.boot();
    return gateway;
  }

  /** Everything the gateway printed, without colours. */
  log(): string {
    return this.output.replace(ANSI, "");
  }

  /** Resolves once the gateway's output contains `text` (after `from` characters). */
  async waitForOutput(text: string, timeoutMs = 120_000, from = 0): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.log().slice(from).includes(text)) {
      if (this.child?.exitCode !== null && this.child?.exitCode !== undefined) {
        throw new Error(
          `the gateway exited with ${this.child.exitCode} before printing "${text}"\n${this.log().slice(-4000)}`,
        );
      }
      if (Date.now() > deadline) throw new Error(`the gateway did not print "${text}"\n${this.log().slice(-4000)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Runs an `openclaw` command against this gateway's config and state; resolves with its output. */
  cli(args: readonly string[]): Promise<string> {
    return runCli(this.options, this.env, args);
  }

  /**
   * Starts the gateway and waits until it prints `readyText`: by default the channel account's
   * line saying it is connected to its daemon.
   */
  async boot(readyText = "connected to the Social Harness daemon"): Promise<void> {
    const from = this.log().length;
    const child = spawn(this.options.host.node, [this.options.host.openclaw, ...this.runArgs], {
      env: this.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    this.child = child;
    child.stdout?.on("data", (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
    await this.waitForOutput(readyText, 180_000, from);
  }

  /** Stops the gateway: SIGTERM, then SIGKILL to its process group after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    const child = this.child;
    if (child?.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => this.kill(), graceMs);
    await this.exited;
    clearTimeout(timer);
    this.kill();
  }

  /** Kills the gateway and its workers at once, as a crash would. */
  kill(): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // The group is already gone.
    }
  }

  /** Kills the gateway at once and waits until it is gone. */
  async crash(): Promise<void> {
    this.kill();
    await this.exited;
  }
}

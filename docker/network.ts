/**
 * docker/compose.yaml as one test project: the commands the README's container section lists,
 * run with a fresh project name (so fresh volumes), loopback ports the engine picks, and fresh
 * console secrets. Every command's output goes to one log file, printed when a step fails.
 */
import { randomBytes } from "node:crypto";
import { appendFileSync } from "node:fs";
import path from "node:path";
import { run } from "./engine.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const COMPOSE_FILE = path.join("docker", "compose.yaml");

/** The services that run and answer a healthcheck; `tokens` is a one-shot job. */
export const SERVICES = ["postgres", "router", "alice", "bob", "carol", "console"] as const;

export class ComposeNetwork {
  readonly project = `sh-test-${randomBytes(4).toString("hex")}`;
  readonly loginToken = randomBytes(24).toString("base64url");
  readonly env: NodeJS.ProcessEnv;

  constructor(readonly logFile: string) {
    this.env = {
      ...process.env,
      CONSOLE_LOGIN_TOKEN: this.loginToken,
      CONSOLE_SECRET: randomBytes(32).toString("base64"),
      // Port 0: the engine picks free loopback ports; `port` reads them back.
      ROUTER_PORT: "0",
      ALICE_PORT: "0",
      BOB_PORT: "0",
      CAROL_PORT: "0",
      CONSOLE_PORT: "0",
    };
  }

  /** Runs a command in the repository root, logging it; throws with the log's tail on failure. */
  async sh(command: string, args: readonly string[]): Promise<string> {
    appendFileSync(this.logFile, `\n$ ${command} ${args.join(" ")}\n`);
    const result = await run(command, args, { cwd: ROOT, env: this.env });
    appendFileSync(this.logFile, result.stdout + result.stderr);
    if (result.code !== 0)
      throw new Error(
        `${command} ${args.join(" ")} exited with ${result.code} (log: ${this.logFile})\n${result.stderr.slice(-4000)}`,
      );
    return result.stdout;
  }

  compose(...args: string[]): Promise<string> {
    return this.sh("docker-compose", ["-p", this.project, "-f", COMPOSE_FILE, ...args]);
  }

  /** The loopback address the engine published a service's port on. */
  async published(service: string, port: number): Promise<string> {
    const address = (await this.compose("port", service, String(port))).trim();
    if (!/^127\.0\.0\.1:\d+$/.test(address)) throw new Error(`${service}:${port} is published on "${address}"`);
    return address;
  }

  /** Reads a file inside a running service's container. */
  async read(service: string, file: string): Promise<string> {
    return (await this.compose("exec", "-T", service, "cat", file)).trim();
  }

  /** Waits until every service's container reports healthy; a container that exits fails at once. */
  async healthy(services: readonly string[] = SERVICES, timeoutMs = 300_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const states = await Promise.all(services.map((service) => this.health(service)));
      const dead = states.find((state) => state.status === "exited" || state.status === "dead");
      if (dead !== undefined) throw new Error(`${dead.service} stopped: ${await this.logsOf(dead.service)}`);
      if (states.every((state) => state.health === "healthy")) return;
      if (Date.now() > deadline)
        throw new Error(`not healthy within ${timeoutMs} ms: ${JSON.stringify(states)} (log: ${this.logFile})`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }

  private async health(service: string): Promise<{ service: string; status: string; health: string }> {
    const id = (await this.compose("ps", "-q", service)).trim();
    if (id === "") return { service, status: "missing", health: "none" };
    const [status = "", health = ""] = (
      await this.sh("docker", [
        "inspect",
        "--format",
        "{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}",
        id,
      ])
    )
      .trim()
      .split(" ");
    return { service, status, health };
  }

  private async logsOf(service: string): Promise<string> {
    return (await this.compose("logs", "--no-color", "--tail", "40", service)).slice(-4000);
  }
}

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { DAEMON_OPTIONS, ROUTER_OPTIONS } from "@social-harness/cli";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const here = path.dirname(new URL(import.meta.url).pathname);

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
}

const compose = parse(readFileSync(path.join(here, "compose.yaml"), "utf8")) as { services: Record<string, Service> };
const ours = Object.entries(compose.services).filter(([, service]) => service.build !== undefined);

function dockerfileOf(service: Service): string {
  return readFileSync(path.join(here, service.build!.context, service.build!.dockerfile), "utf8");
}

describe("docker/compose.yaml", () => {
  it("builds every service of ours from a Dockerfile in docker/", () => {
    expect(ours.map(([name]) => name).sort()).toEqual(["alice", "bob", "carol", "console", "router"]);
    for (const [, service] of ours)
      expect(existsSync(path.join(here, service.build!.context, service.build!.dockerfile))).toBe(true);
  });

  it("runs the router on PostgreSQL with options the router command accepts", () => {
    const router = compose.services.router!;
    expect(dockerfileOf(router)).toContain('ENTRYPOINT ["social-harness"]');
    const [command, ...args] = router.command!;
    expect(command).toBe("router");
    const { values } = parseArgs({ args, options: ROUTER_OPTIONS, strict: true });
    expect(values.database).toMatch(/^postgres:\/\/.*@postgres:5432\//);
  });

  it("runs each agent's daemon with options the daemon command accepts", () => {
    for (const name of ["alice", "bob", "carol"]) {
      const service = compose.services[name]!;
      expect(dockerfileOf(service)).toContain('ENTRYPOINT ["social-harness"]');
      const [command, ...args] = service.command!;
      expect(command).toBe("daemon");
      const { values } = parseArgs({ args, options: DAEMON_OPTIONS, strict: true });
      expect(values.name).toBe(name);
      expect(values.router).toBe("ws://router:7700");
    }
  });

  it("runs the console's standalone Next.js server", () => {
    const service = compose.services.console!;
    expect(service.command).toEqual(["node", "server.js"]);
    expect(dockerfileOf(service)).toContain(".next/standalone");
  });

  it("builds the command line the images run", () => {
    const dockerfile = dockerfileOf(compose.services.router!);
    expect(dockerfile).toContain("packages/cli/bin/social-harness.js");
    expect(existsSync(path.join(here, "../packages/cli/bin/social-harness.js"))).toBe(true);
  });
});

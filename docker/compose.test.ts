import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { DAEMON_OPTIONS, ROUTER_OPTIONS, TOKEN_OPTIONS } from "@social-harness/cli";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const here = path.dirname(new URL(import.meta.url).pathname);

interface Service {
  image?: string;
  ports?: string[];
  healthcheck?: { test?: string[]; disable?: boolean };
  build?: { context: string; dockerfile: string };
  entrypoint?: string[];
  command?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
}

const compose = parse(readFileSync(path.join(here, "compose.yaml"), "utf8")) as { services: Record<string, Service> };
const ours = Object.entries(compose.services).filter(([, service]) => service.build !== undefined);

function dockerfileOf(service: Service): string {
  return readFileSync(path.join(here, service.build!.context, service.build!.dockerfile), "utf8");
}

describe("docker/compose.yaml", () => {
  it("builds every service of ours from a Dockerfile in docker/", () => {
    expect(ours.map(([name]) => name).sort()).toEqual(["alice", "bob", "carol", "console", "router", "tokens"]);
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
    // It listens beyond loopback, where a router must be told who may register.
    expect(values.listen).toBe("0.0.0.0:7700");
    expect(values.admission).toBe("token");
  });

  it("issues each daemon, once, a registration token for its name in the router's database", () => {
    const service = compose.services.tokens!;
    expect(service.entrypoint).toEqual(["/bin/sh", "-c"]);
    const script = service.command![0]!;
    const issue = /social-harness router token create (.*?) \|\| exit 1;/.exec(script);
    expect(script).toMatch(/^for agent in alice bob carol; do \[ -f \/tokens\/\$\$agent\.token \] \|\|/);
    const router = parseArgs({
      args: compose.services.router!.command!.slice(1),
      options: ROUTER_OPTIONS,
      strict: true,
    });
    const args = issue![1]!.replaceAll("$$agent", "bob").split(" ");
    const { values } = parseArgs({ args, options: TOKEN_OPTIONS, strict: true });
    expect(values).toMatchObject({ database: router.values.database, name: "bob", out: "/tokens/bob.token" });
    expect(service.volumes).toEqual(["tokens:/tokens"]);
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
      expect(values["registration-token"]).toBe(`/tokens/${name}.token`);
      expect(service.volumes).toContain("tokens:/tokens:ro");
      expect(service.depends_on?.tokens).toEqual({ condition: "service_completed_successfully" });
    }
  });

  it("runs the console's standalone Next.js server", () => {
    const service = compose.services.console!;
    expect(service.command).toEqual(["node", "server.js"]);
    expect(dockerfileOf(service)).toContain(".next/standalone");
  });

  it("builds the command line the images run", () => {
    const dockerfile = dockerfileOf(compose.services.router!);
    expect(dockerfile).toContain("apps/cli/bin/social-harness.js");
    expect(existsSync(path.join(here, "../apps/cli/bin/social-harness.js"))).toBe(true);
  });

  it("publishes every port on loopback only", () => {
    const ports = Object.values(compose.services).flatMap((service) => service.ports ?? []);
    expect(ports).toHaveLength(5);
    for (const port of ports) expect(port).toMatch(/^127\.0\.0\.1:\$\{[A-Z]+_PORT:-\d+\}:\d+$/);
  });

  it("gives every service that keeps running a healthcheck, and the one-shot tokens job none", () => {
    for (const [name, service] of Object.entries(compose.services)) {
      if (name === "tokens") {
        expect(service.healthcheck).toEqual({ disable: true });
        continue;
      }
      const inImage = service.build !== undefined && dockerfileOf(service).includes("\nHEALTHCHECK ");
      expect(inImage || service.healthcheck?.test !== undefined, name).toBe(true);
    }
  });

  it("builds final images that run as the node user and hold no build tools", () => {
    for (const file of ["router.Dockerfile", "daemon.Dockerfile", "console.Dockerfile"]) {
      const text = readFileSync(path.join(here, file), "utf8");
      const final = text.slice(text.lastIndexOf("\nFROM "));
      expect(final, file).toMatch(/^\nFROM node:24-bookworm-slim\n/);
      expect(final, file).toContain("\nUSER node\n");
      expect(final, file).not.toMatch(/apt-get|g\+\+|npm (ci|install)/);
    }
  });

  it("installs dependencies in one stage, the same in all three Dockerfiles, from every workspace manifest and no source", () => {
    const stages = ["router.Dockerfile", "daemon.Dockerfile", "console.Dockerfile"].map((file) => {
      const text = readFileSync(path.join(here, file), "utf8");
      return text.slice(text.indexOf("FROM "), text.indexOf("\nFROM deps AS build"));
    });
    expect(new Set(stages).size).toBe(1);
    const manifests = stages[0]!.split("\n").filter((line) => line.startsWith("COPY "));
    for (const line of manifests)
      expect(line).toMatch(/^COPY (package\.json package-lock\.json \.\/|\S+\/package\.json \S+\/)$/);
    const workspaces = (
      JSON.parse(readFileSync(path.join(here, "../package.json"), "utf8")) as { workspaces: string[] }
    ).workspaces;
    expect(
      manifests
        .slice(1)
        .map((line) => line.split(" ")[1])
        .sort(),
    ).toEqual(workspaces.map((workspace) => `${workspace}/package.json`).sort());
  });

  it("keeps node_modules, .next and .data out of the build context", () => {
    const ignored = readFileSync(path.join(here, "../.dockerignore"), "utf8").split("\n");
    for (const entry of ["**/node_modules", "**/.next", "**/.data"]) expect(ignored).toContain(entry);
  });
});

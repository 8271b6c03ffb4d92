/**
 * `social-harness demo`: a whole local network on loopback — a router, daemons alice, bob and
 * carol, and the owner console — with SQLite under one data directory. The router admits new
 * names by registration token, as a deployment would: the demo issues each daemon its token on
 * the first run. A second run reuses the directory, so identities, history and ports survive.
 * Ctrl-C stops everything cleanly. Scripted traffic (demo-traffic.ts) keeps the network busy
 * unless `--no-traffic` is given.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createRegistrationToken } from "@social-harness/router";
import { demoDaemonArgs, startDemoTraffic, type DemoTraffic } from "./demo-traffic.js";
import { announceReady } from "./stop-request.js";
import { spawnServer, type ServerProcess } from "./spawn-server.js";

const AGENTS = ["alice", "bob", "carol"] as const;
// `next start` answers SIGTERM by closing its server, which waits for every open connection; a
// console page left open polls every two seconds, so its keep-alive connections may never go
// idle. The console keeps no state, so it is killed once this grace period has passed.
const CONSOLE_STOP_GRACE_MS = 3_000;
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const CLI = path.join(REPO, "apps/cli/bin/social-harness.js");
const TOKEN_FILE = "registration.token";
const TOKEN_TTL_MS = 60 * 60 * 1000;

interface Ports {
  router: number;
  console: number;
  daemons: Record<string, number>;
}

/** The port we used last time if it is free, else the preferred one if free, else any. */
async function freePort(...candidates: (number | undefined)[]): Promise<number> {
  for (const candidate of [...candidates, 0]) {
    if (candidate === undefined) continue;
    const port = await new Promise<number | undefined>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(undefined));
      server.listen(candidate, "127.0.0.1", () => {
        const address = server.address();
        server.close(() => resolve(typeof address === "object" && address !== null ? address.port : undefined));
      });
    });
    if (port !== undefined) return port;
  }
  throw new Error("no free port on 127.0.0.1");
}

/**
 * Gives each agent a registration token for its name, unless it has one from an earlier run (its
 * name is registered by then, and the router ignores the spent token).
 */
async function issueTokens(routerDir: string, dataDir: string): Promise<void> {
  for (const agent of AGENTS) {
    const file = path.join(dataDir, agent, TOKEN_FILE);
    if (existsSync(file)) continue;
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const { token } = await createRegistrationToken({ dataDir: routerDir, name: agent, ttlMs: TOKEN_TTL_MS });
    writeFileSync(file, `${token}\n`, { mode: 0o600, flag: "wx" });
  }
}

async function choosePorts(file: string): Promise<Ports> {
  const last = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Partial<Ports>) : {};
  const ports: Ports = {
    router: await freePort(last.router, 7700),
    console: await freePort(last.console, 3000),
    daemons: {},
  };
  for (const agent of AGENTS) ports.daemons[agent] = await freePort(last.daemons?.[agent]);
  writeFileSync(file, `${JSON.stringify(ports, null, 2)}\n`);
  return ports;
}

export async function runDemoCommand(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: { data: { type: "string", default: ".data/demo" }, "no-traffic": { type: "boolean", default: false } },
    strict: true,
  });
  const dataDir = path.resolve(values.data);
  const logs = path.join(dataDir, "logs");
  mkdirSync(logs, { recursive: true, mode: 0o700 });
  if (!existsSync(path.join(REPO, ".next", "BUILD_ID"))) {
    throw new Error("the console is not built: run `npm run build` (npm start does this for you)");
  }
  const ports = await choosePorts(path.join(dataDir, "ports.json"));
  const children: ServerProcess[] = [];
  let consoleServer: ServerProcess | undefined;
  let traffic: DemoTraffic | undefined;
  const stopAll = async () => {
    await traffic?.stop();
    for (const child of children.reverse()) {
      const kill =
        child === consoleServer ? setTimeout(() => void child.stop("SIGKILL"), CONSOLE_STOP_GRACE_MS) : undefined;
      await child.stop();
      clearTimeout(kill);
    }
  };
  const logEnv = { LOG_LEVEL: process.env.LOG_LEVEL ?? "info" };
  const routerDir = path.join(dataDir, "router");
  await issueTokens(routerDir, dataDir);
  try {
    const router = spawnServer(
      process.execPath,
      [CLI, "router", "--data", routerDir, "--listen", `127.0.0.1:${ports.router}`, "--admission", "token"],
      {
        env: logEnv,
        logFile: path.join(logs, "router.log"),
      },
    );
    children.push(router);
    const routerUrl = (await router.ready).router as string;

    const daemons = AGENTS.map((agent) => {
      const server = spawnServer(
        process.execPath,
        [
          CLI,
          "daemon",
          "--name",
          agent,
          "--router",
          routerUrl,
          "--data",
          path.join(dataDir, agent),
          "--listen",
          `127.0.0.1:${ports.daemons[agent]}`,
          "--registration-token",
          path.join(dataDir, agent, TOKEN_FILE),
          ...demoDaemonArgs(agent),
        ],
        { env: logEnv, logFile: path.join(logs, `${agent}.log`) },
      );
      children.push(server);
      return server;
    });
    const ready = await Promise.all(daemons.map((d) => d.ready));

    const loginToken = randomBytes(24).toString("base64url");
    const consoleDaemons = ready.map((line) => ({
      name: line.name as string,
      url: (line.mcp as string).replace(/\/mcp$/, ""),
      ownerTokenFile: path.join(line.data as string, "owner.token"),
    }));
    consoleServer = spawnServer(
      process.execPath,
      [path.join(REPO, "node_modules/next/dist/bin/next"), "start", "-H", "127.0.0.1", "-p", String(ports.console)],
      {
        cwd: REPO,
        env: {
          SOCIAL_HARNESS_CONSOLE_DAEMONS: JSON.stringify(consoleDaemons),
          SOCIAL_HARNESS_CONSOLE_LOGIN_TOKEN: loginToken,
          SOCIAL_HARNESS_CONSOLE_SECRET: randomBytes(32).toString("base64url"),
          NODE_ENV: "production",
        },
        logFile: path.join(logs, "console.log"),
        isReady: (line) => /ready/i.test(line),
      },
    );
    children.push(consoleServer);
    await consoleServer.ready;
    if (!values["no-traffic"]) {
      traffic = await startDemoTraffic(
        dataDir,
        ready.map((line) => ({
          name: line.name as string,
          base: (line.mcp as string).replace(/\/mcp$/, ""),
          dataDir: line.data as string,
        })),
        (line) => process.stderr.write(`${line}\n`),
      );
    }

    const consoleUrl = `http://127.0.0.1:${ports.console}`;
    const login = `${consoleUrl}/login?token=${loginToken}`;
    const lines = [
      "",
      "Social Harness demo network is running (Ctrl-C stops it).",
      `  data:    ${dataDir}  (logs in ${logs})`,
      `  router:  ${routerUrl}`,
      ...ready.map(
        (line) =>
          `  ${String(line.name).padEnd(7)}  MCP ${String(line.mcp)}  token file ${path.join(line.data as string, "runtime.token")}`,
      ),
      `  console: ${login}`,
      "           (a one-time login link; open it in your browser)",
      "",
    ];
    const stop = announceReady(
      lines.join("\n") +
        "\n" +
        `${JSON.stringify({
          ready: true,
          console: login,
          router: routerUrl,
          daemons: Object.fromEntries(
            ready.map((line) => [
              line.name as string,
              { mcp: line.mcp, data: line.data, runtimeTokenFile: path.join(line.data as string, "runtime.token") },
            ]),
          ),
        })}\n`,
    );

    await new Promise<void>((resolve) => {
      let stopping = false;
      void stop.then(() => {
        stopping = true;
        resolve();
      });
      for (const child of children) {
        void child.exited.then((code) => {
          // A terminal's Ctrl-C signals the whole process group, so the children stop beside us:
          // give our own signal handler a moment before calling an exit unexpected.
          setTimeout(() => {
            if (!stopping) process.stderr.write(`a demo process exited unexpectedly (${code}); stopping the network\n`);
            resolve();
          }, 200);
        });
      }
    });
    process.stdout.write("stopping the demo network...\n");
  } finally {
    await stopAll();
  }
}

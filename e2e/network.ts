/**
 * Playwright fixtures that start a real Social Harness network on loopback: a router and the
 * daemons alice and bob per worker (through the command line, via the daemon's test harness),
 * plus carol for webhooks (local callbacks allowed, a test CA trusted, retries shortened) and dave
 * under the allowlist trust policy, and for each test a fresh console under `next start` with its
 * own one-time login token.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { test as base } from "@playwright/test";
import { DaemonProcess, removeDirs, RouterProcess, tempDir } from "../apps/daemon/test/harness/processes.js";
import { createTestCa, type TestCa } from "../apps/daemon/test/webhooks/tls.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const NEXT_BIN = path.join(ROOT, "node_modules/next/dist/bin/next");

/** The router and daemons a worker's tests share. */
export interface Network {
  readonly router: RouterProcess;
  readonly alice: DaemonProcess;
  readonly bob: DaemonProcess;
  /** A daemon for webhook journeys; it trusts `webhookCa` for HTTPS receivers on loopback. */
  readonly carol: DaemonProcess;
  /** A daemon started with `--trust allowlist`: items from agents it does not trust are held. */
  readonly dave: DaemonProcess;
  readonly webhookCa: TestCa;
}

/** Carol's webhook options: loopback receivers, and suspension after 100 attempts over 1.5 s. */
const CAROL_ARGS = [
  "--unsafe-allow-local-callbacks",
  "--webhook-retry-base-ms",
  "20",
  "--webhook-retry-cap-ms",
  "50",
  "--webhook-suspend-window-ms",
  "1500",
];

/** A running console and the link that signs a browser in to it. */
export interface ConsoleServer {
  readonly url: string;
  readonly loginUrl: string;
  /** The secret its session cookies are signed with (for tests that forge or expire one). */
  readonly sessionSecret: string;
  readonly output: () => string;
}

function requireBuilds(): void {
  if (!existsSync(path.join(ROOT, ".next/BUILD_ID"))) {
    throw new Error("The console is not built: run `npx next build` (or `npm run test:e2e`, which builds first).");
  }
  if (!existsSync(path.join(ROOT, "apps/cli/dist/cli.js"))) {
    throw new Error("The command line is not built: run `npm run build:node`.");
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port was assigned");
  return address.port;
}

// `next start` closes only once every connection is idle, and a page still open polls every 2 s;
// the console is stateless, so after a grace period it is killed (as the demo does).
async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const graceOver = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), 5_000)));
  if ((await Promise.race([exited, graceOver])) === "late") {
    child.kill("SIGKILL");
    await exited;
  }
  clearTimeout(timer);
}

/** Starts `next start` for the built console over `daemons` and resolves once it answers HTTP. */
export async function startConsole(
  managed: readonly DaemonProcess[],
): Promise<{ server: ConsoleServer; stop: () => Promise<void> }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const loginToken = randomBytes(32).toString("base64url");
  const sessionSecret = randomBytes(32).toString("base64url");
  const daemons = managed.map((daemon) => ({
    name: daemon.name,
    url: daemon.trpcUrl.replace(/\/trpc$/, ""),
    ownerTokenFile: path.join(daemon.dataDir, "owner.token"),
  }));
  const child = spawn(process.execPath, [NEXT_BIN, "start", "-H", "127.0.0.1", "-p", String(port)], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      SOCIAL_HARNESS_CONSOLE_DAEMONS: JSON.stringify(daemons),
      SOCIAL_HARNESS_CONSOLE_LOGIN_TOKEN: loginToken,
      SOCIAL_HARNESS_CONSOLE_SECRET: sessionSecret,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = () => stopChild(child, exited);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the console exited with ${child.exitCode}:\n${output}`);
    try {
      const response = await fetch(`${url}/signed-out`);
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the console did not answer within 30 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    server: { url, loginUrl: `${url}/login?token=${loginToken}`, sessionSecret, output: () => output },
    stop,
  };
}

/** `test` with the `network` (per worker) and `consoleServer` (per test) fixtures. */
export const test = base.extend<{ consoleServer: ConsoleServer }, { network: Network }>({
  network: [
    // Playwright reads fixture dependencies from the destructuring pattern; this one has none.
    async ({}, provide) => {
      requireBuilds();
      const dirs = {
        router: tempDir("router"),
        alice: tempDir("alice"),
        bob: tempDir("bob"),
        carol: tempDir("carol"),
        dave: tempDir("dave"),
      };
      const webhookCa = createTestCa();
      try {
        const router = await RouterProcess.start({ dataDir: dirs.router });
        try {
          const started = await Promise.allSettled([
            DaemonProcess.start({ name: "alice", router: router.url, dataDir: dirs.alice }),
            DaemonProcess.start({ name: "bob", router: router.url, dataDir: dirs.bob }),
            DaemonProcess.start({
              name: "carol",
              router: router.url,
              dataDir: dirs.carol,
              extraArgs: CAROL_ARGS,
              env: { NODE_EXTRA_CA_CERTS: webhookCa.caFile },
            }),
            DaemonProcess.start({ name: "dave", router: router.url, dataDir: dirs.dave, trust: "allowlist" }),
          ]);
          const running = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
          try {
            const [alice, bob, carol, dave] = started;
            if (alice.status === "rejected") throw alice.reason;
            if (bob.status === "rejected") throw bob.reason;
            if (carol.status === "rejected") throw carol.reason;
            if (dave.status === "rejected") throw dave.reason;
            // A daemon is ready before its router link is; tests send at once.
            await Promise.all(running.map((daemon) => daemon.linked()));
            await provide({
              router,
              alice: alice.value,
              bob: bob.value,
              carol: carol.value,
              dave: dave.value,
              webhookCa,
            });
          } finally {
            await Promise.all(running.map((daemon) => daemon.stop()));
          }
        } finally {
          await router.stop();
        }
      } finally {
        removeDirs(dirs.router, dirs.alice, dirs.bob, dirs.carol, dirs.dave);
        webhookCa.remove();
      }
    },
    { scope: "worker", timeout: 60_000 },
  ],
  // The second parameter is Playwright's `use`, named otherwise so React's hook rules leave it be.
  consoleServer: async ({ network }, provide, testInfo) => {
    const { server, stop } = await startConsole([network.alice, network.bob, network.carol, network.dave]);
    try {
      await provide(server);
    } finally {
      await stop();
      if (testInfo.status !== testInfo.expectedStatus) {
        await testInfo.attach("console-output", { body: server.output(), contentType: "text/plain" });
      }
    }
  },
});

export { expect } from "@playwright/test";

/**
 * `social-harness daemon --name <agent> --router ws://... --data <dir> [--listen 127.0.0.1:0]
 * [--trust open|allowlist] [--registration-token <file>] [--unsafe-allow-local-callbacks]`:
 * starts a daemon, prints one ready line of JSON to stdout, logs to stderr, and shuts down
 * cleanly on SIGTERM or SIGINT. The only place that reads the daemon's command line and
 * environment.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { ed25519, isAgentName, REGISTRATION_TOKEN_PATTERN } from "@social-harness/protocol";
import { pino } from "pino";
import { FAULT_POINTS, startDaemon, type FaultPoint } from "@social-harness/daemon";
import { anatomyFromEnvironment } from "./anatomy-switch.js";
import { tracingFromEnvironment } from "./tracing-switch.js";
import { countStatementsTo } from "./statement-counts.js";
import { parseListen } from "./listen.js";
import { announceReady } from "./stop-request.js";

/** The daemon command's options, exactly as `parseArgs` reads them. */
export const DAEMON_OPTIONS = {
  name: { type: "string" },
  router: { type: "string" },
  data: { type: "string" },
  listen: { type: "string", default: "127.0.0.1:0" },
  trust: { type: "string", default: "open" },
  "registration-token": { type: "string" },
  "router-timeout-ms": { type: "string" },
  "collective-wait-ms": { type: "string" },
  "event-heartbeat-ms": { type: "string" },
  "unsafe-allow-local-callbacks": { type: "boolean", default: false },
  "webhook-timeout-ms": { type: "string" },
  "webhook-retry-base-ms": { type: "string" },
  "webhook-retry-cap-ms": { type: "string" },
  "webhook-suspend-window-ms": { type: "string" },
  "test-fault": { type: "string", multiple: true },
  "firewall-policy": { type: "string" },
  "firewall-workers": { type: "string" },
} as const;

/** The environment a test sets before it may name a fault point; a production start has none. */
export const TEST_FAULTS_ENV = "SOCIAL_HARNESS_TEST_FAULTS";

function faultPoints(values: readonly string[] | undefined): FaultPoint[] | undefined {
  if (values === undefined || values.length === 0) return undefined;
  if (process.env[TEST_FAULTS_ENV] !== "1") {
    throw new Error(`--test-fault is for tests only: this start has no ${TEST_FAULTS_ENV}=1 and refuses it`);
  }
  for (const value of values) {
    if (!(FAULT_POINTS as readonly string[]).includes(value))
      throw new Error(`--test-fault takes one of ${FAULT_POINTS.join(", ")}, not ${JSON.stringify(value)}`);
  }
  return values as FaultPoint[];
}

type MillisecondFlag =
  | "router-timeout-ms"
  | "collective-wait-ms"
  | "event-heartbeat-ms"
  | "webhook-timeout-ms"
  | "webhook-retry-base-ms"
  | "webhook-retry-cap-ms"
  | "webhook-suspend-window-ms";

/** The token in a `--registration-token` file (as `router token create --out` writes it). */
function readRegistrationToken(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  let token: string;
  try {
    token = readFileSync(file, "utf8").trim();
  } catch (error) {
    throw new Error(`cannot read the --registration-token file ${file}`, { cause: error });
  }
  if (!REGISTRATION_TOKEN_PATTERN.test(token)) {
    throw new Error(
      `${file} does not hold a registration token (sh_reg_…, from \`social-harness router token create\`)`,
    );
  }
  return token;
}

export async function runDaemonCommand(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({ args: [...argv], options: DAEMON_OPTIONS, strict: true });
  if (values.name === undefined || !isAgentName(values.name))
    throw new Error("--name <agent> is required: 3-32 of a-z 0-9 _ -");
  if (values.router === undefined) throw new Error("--router ws://host:port is required");
  if (values.data === undefined) throw new Error("--data <dir> is required");
  if (values.trust !== "open" && values.trust !== "allowlist") throw new Error("--trust is open or allowlist");
  const faults = faultPoints(values["test-fault"]);

  const registrationToken = readRegistrationToken(values["registration-token"]);
  const log = pino({ name: values.name, level: process.env.LOG_LEVEL ?? "info" }, pino.destination(2));
  const { host, port } = parseListen(values.listen);
  const milliseconds = (flag: MillisecondFlag) => {
    const value = values[flag];
    if (value === undefined) return undefined;
    const ms = Number(value);
    if (!Number.isSafeInteger(ms) || ms <= 0) throw new Error(`--${flag} takes a positive number of milliseconds`);
    return ms;
  };
  const count = (flag: "firewall-workers", max: number) => {
    const value = values[flag];
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < 1 || n > max)
      throw new Error(`--${flag} takes a whole number from 1 to ${max}`);
    return n;
  };

  anatomyFromEnvironment(values.name);
  const stopTracing = await tracingFromEnvironment("social-harness-daemon", values.name);
  const statementCounter = countStatementsTo(process.env.SOCIAL_HARNESS_STATEMENT_COUNTS);
  const daemon = await startDaemon({
    name: values.name,
    routerUrl: values.router,
    dataDir: path.resolve(values.data),
    host,
    port,
    trust: values.trust,
    registrationToken,
    log,
    routerTimeoutMs: milliseconds("router-timeout-ms"),
    collectiveWaitMs: milliseconds("collective-wait-ms"),
    heartbeatMs: Math.min(milliseconds("event-heartbeat-ms") ?? 25_000, 30_000),
    allowLocalCallbacks: values["unsafe-allow-local-callbacks"],
    statementCounter,
    webhookSchedule: {
      attemptTimeoutMs: milliseconds("webhook-timeout-ms"),
      retryBaseMs: milliseconds("webhook-retry-base-ms"),
      // The cap is 60 s (SPEC §14); a smaller one is for tests.
      retryCapMs: Math.min(milliseconds("webhook-retry-cap-ms") ?? 60_000, 60_000),
      suspendWindowMs: milliseconds("webhook-suspend-window-ms"),
    },
    faults,
    firewallPolicyFile: values["firewall-policy"] === undefined ? undefined : path.resolve(values["firewall-policy"]),
    firewallWorkers: count("firewall-workers", 64),
  });
  if (faults !== undefined) log.warn({ faults }, "test fault points are armed");
  const stop = announceReady(
    `${JSON.stringify({ ready: true, name: daemon.name, mcp: daemon.mcpUrl, trpc: daemon.trpcUrl, data: daemon.dataDir, ed25519: ed25519.name })}\n`,
  );
  log.info({ mcp: daemon.mcpUrl, ed25519: ed25519.name }, "daemon ready");
  const signal = await stop;
  log.info({ signal }, "daemon stopping");
  await daemon.close().catch((error: unknown) => log.error({ err: error }, "daemon did not close cleanly"));
  await stopTracing().catch((error: unknown) => log.warn({ err: error }, "traces were not all exported"));
}

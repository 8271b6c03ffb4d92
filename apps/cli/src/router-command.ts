/**
 * `social-harness router --data <dir> [--listen 127.0.0.1:7700] [--database postgres://...]
 * [--admission open|token|keys] [--allowed-keys <file>] [--metrics-listen [host:]port]`: starts a router, prints one ready line
 * of JSON to stdout, logs to stderr, and shuts down cleanly on SIGTERM or SIGINT. The only place
 * the router reads its command line. `router token ...` issues registration tokens;
 * `router agent withdraw` withdraws a registered name.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { ed25519 } from "@social-harness/protocol";
import {
  ADMISSION_MODES,
  isLoopbackHost,
  startRouter,
  type Admission,
  type AdmissionMode,
} from "@social-harness/router";
import { anatomyFromEnvironment } from "./anatomy-switch.js";
import { tracingFromEnvironment } from "./tracing-switch.js";
import { parseListen } from "./listen.js";
import { announceReady } from "./stop-request.js";

/** The router command's options, exactly as `parseArgs` reads them. */
export const ROUTER_OPTIONS = {
  data: { type: "string" },
  listen: { type: "string", default: "127.0.0.1:7700" },
  database: { type: "string" },
  admission: { type: "string" },
  "allowed-keys": { type: "string" },
  "metrics-listen": { type: "string" },
} as const;

/** `--metrics-listen host:port`, or a bare port on loopback. */
export function metricsListenOf(value: string | undefined): { host: string; port: number } | undefined {
  if (value === undefined) return undefined;
  return /^\d+$/.test(value) ? parseListen(`127.0.0.1:${value}`) : parseListen(value);
}

/** `--admission` and `--allowed-keys` as the router takes them; undefined leaves the default to the router. */
export function admissionOf(mode: string | undefined, allowedKeys: string | undefined): Admission | undefined {
  if (mode !== undefined && !ADMISSION_MODES.includes(mode as AdmissionMode)) {
    throw new Error(`--admission is ${ADMISSION_MODES.join(", ")}, not ${mode}`);
  }
  if (mode === "keys") {
    if (allowedKeys === undefined) throw new Error("--admission keys needs --allowed-keys <file>");
    return { mode, allowedKeysFile: path.resolve(allowedKeys) };
  }
  if (allowedKeys !== undefined) throw new Error("--allowed-keys is read only with --admission keys");
  return mode === "open" || mode === "token" ? { mode } : undefined;
}

/** Runs the router command; resolves when the router has shut down. */
export async function runRouterCommand(argv: readonly string[]): Promise<void> {
  if (argv[0] === "token") {
    const { runRouterTokenCommand } = await import("./router-token-command.js");
    return runRouterTokenCommand(argv.slice(1));
  }
  if (argv[0] === "agent") {
    const { runRouterAgentCommand } = await import("./router-agent-command.js");
    return runRouterAgentCommand(argv.slice(1));
  }
  const { values } = parseArgs({ args: [...argv], options: ROUTER_OPTIONS, strict: true });
  if (values.data === undefined) throw new Error("--data <dir> is required");
  const admission = admissionOf(values.admission, values["allowed-keys"]);
  const log = pino({ name: "router", level: process.env.LOG_LEVEL ?? "info" }, pino.destination(2));
  const { host, port } = parseListen(values.listen);
  const metricsListen = metricsListenOf(values["metrics-listen"]);
  anatomyFromEnvironment("router");
  const router = await startRouter({
    dataDir: values.data,
    host,
    port,
    database: values.database,
    log,
    admission,
    metricsListen,
  });
  // Before the ready line, so every link is traced; the instance is the address the router bound.
  const stopTracing = await tracingFromEnvironment("social-harness-router", new URL(router.url).host);
  const ready = {
    ready: true,
    router: router.url,
    ed25519: ed25519.name,
    ...(router.metricsUrl === undefined ? {} : { metrics: router.metricsUrl }),
  };
  const stop = announceReady(`${JSON.stringify(ready)}\n`);
  log.info(
    {
      url: router.url,
      storage: values.database === undefined ? "sqlite" : "postgres",
      admission: router.admission.mode,
      ed25519: ed25519.name,
    },
    "router ready",
  );
  if (router.admission.mode === "open" && !isLoopbackHost(host)) {
    log.warn("admission is open: anyone who reaches this router may register any free name");
  }
  const signal = await stop;
  log.info({ signal }, "router stopping");
  await router.close().catch((error: unknown) => log.error({ err: error }, "router did not close cleanly"));
  await stopTracing().catch((error: unknown) => log.warn({ err: error }, "traces were not all exported"));
}

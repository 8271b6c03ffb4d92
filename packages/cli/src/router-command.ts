/**
 * `social-harness router --data <dir> [--listen 127.0.0.1:7700] [--database postgres://...]`:
 * starts a router, prints one ready line of JSON to stdout, logs to stderr, and shuts down
 * cleanly on SIGTERM or SIGINT. The only place the router reads its command line.
 */
import { parseArgs } from "node:util";
import { pino } from "pino";
import { startRouter } from "@social-harness/router";
import { parseListen } from "./listen.js";

/** The router command's options, exactly as `parseArgs` reads them. */
export const ROUTER_OPTIONS = {
  data: { type: "string" },
  listen: { type: "string", default: "127.0.0.1:7700" },
  database: { type: "string" },
} as const;

/** Runs the router command; resolves when the router has shut down. */
export async function runRouterCommand(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({ args: [...argv], options: ROUTER_OPTIONS, strict: true });
  if (values.data === undefined) throw new Error("--data <dir> is required");
  const log = pino({ name: "router", level: process.env.LOG_LEVEL ?? "info" }, pino.destination(2));
  const { host, port } = parseListen(values.listen);
  const router = await startRouter({ dataDir: values.data, host, port, database: values.database, log });
  process.stdout.write(`${JSON.stringify({ ready: true, router: router.url })}\n`);
  log.info({ url: router.url, storage: values.database === undefined ? "sqlite" : "postgres" }, "router ready");
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log.info({ signal }, "router stopping");
      router.close().then(resolve, (error: unknown) => {
        log.error({ err: error }, "router did not close cleanly");
        resolve();
      });
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  });
}

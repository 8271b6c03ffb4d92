/**
 * The router's composition: storage, the signing key, the bus, the genesis coordinator and the
 * link server on one HTTP server, and /metrics on its own loopback server when asked. `startRouter` is what the CLI and the tests call.
 */
import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { anatomyOptions, signingKeyFromSeed } from "@social-harness/protocol";
import type { Logger } from "pino";
import { randomBytes } from "node:crypto";
import { createLocalBus, createPostgresBus } from "./bus/bus.js";
import { AppendBatcher, RecentRecords, type AppendContext } from "./conversations/append.service.js";
import { inProcessWriter, sqliteWriter } from "./conversations/append-writer.js";
import { GenesisCoordinator } from "./conversations/genesis.service.js";
import { openRouterStore } from "./db/database.js";
import { LinkServer } from "./link/link-server.js";
import { RouterMetrics, serveMetrics } from "./metrics/router-metrics.js";
import { chooseAdmission, loadAllowedKeys, type Admission } from "./registry/admission.js";
import { Registrar } from "./registry/registration.service.js";
import { loadRouterSeed } from "./registry/registry.store.js";
import { watchWithdrawals } from "./registry/withdrawal-watch.js";

export interface RouterOptions {
  readonly dataDir: string;
  readonly host: string;
  readonly port: number;
  /** A postgres:// URL; SQLite in the data directory when absent. */
  readonly database?: string;
  readonly log: Logger;
  readonly cosignTimeoutMs?: number;
  /** Who may register a new name; required unless the router listens on loopback (then open). */
  readonly admission?: Admission;
  /** `--metrics-listen`: where /metrics (Prometheus) is served; not served when absent. */
  readonly metricsListen?: { readonly host: string; readonly port: number };
}

export interface RunningRouter {
  /** ws://host:port of the link endpoint. */
  readonly url: string;
  readonly publicKey: Uint8Array;
  readonly admission: Admission;
  /** http://host:port/metrics when `metricsListen` was given. */
  readonly metricsUrl?: string;
  close(): Promise<void>;
}

const SWEEP_INTERVAL_MS = 10_000;

export async function startRouter(options: RouterOptions): Promise<RunningRouter> {
  const admission = chooseAdmission(options.host, options.admission);
  // A broken allowed-keys file fails the start, not the first registration.
  if (admission.mode === "keys") loadAllowedKeys(admission.allowedKeysFile);
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const store = await openRouterStore({
    database: options.database,
    sqliteFile: path.join(options.dataDir, "router.db"),
  });
  const bus =
    store.postgres === undefined
      ? createLocalBus()
      : await createPostgresBus(store.postgres.config, store.postgres.channel, options.log);
  const routerKey = signingKeyFromSeed(await loadRouterSeed(store.db, () => randomBytes(32), Date.now()));
  const ctx: AppendContext = {
    store,
    bus,
    routerKey,
    now: () => Date.now(),
    knownAgents: new Set(),
    recent: new RecentRecords(),
  };
  const writer =
    store.sqliteFile === undefined
      ? inProcessWriter(store.db, { dialect: store.dialect, routerKey, now: ctx.now })
      : sqliteWriter({
          file: store.sqliteFile,
          routerKey,
          now: ctx.now,
          anatomy: anatomyOptions(),
          placement: {
            onMove: (to, medianMs) =>
              options.log.info(
                { medianMs, to },
                `SQLite batches now commit on ${to === "loop" ? "the event loop" : "a writer thread"}`,
              ),
          },
        });
  const metrics: RouterMetrics = new RouterMetrics(() => links.linkCount);
  const appends = new AppendBatcher(ctx, writer, (count, seconds, place) => metrics.committed(count, seconds, place));
  const genesis = new GenesisCoordinator(ctx, appends, {
    deliveryTimeoutMs: store.postgres === undefined ? 0 : 2_000,
    cosignTimeoutMs: options.cosignTimeoutMs ?? 10_000,
  });
  const http = createServer((_req, res) => {
    res
      .writeHead(426, { "content-type": "text/plain" })
      .end("this is a Social Harness router: link with a WebSocket\n");
  });
  const registrar = new Registrar({ db: store.db, admission, log: options.log, now: ctx.now });
  const links: LinkServer = new LinkServer(http, { ...ctx, appends, genesis, registrar, log: options.log, metrics });
  // Several routers share PostgreSQL: a periodic sweep catches any notification a bus lost.
  const sweep =
    store.postgres === undefined
      ? undefined
      : setInterval(() => {
          links.refreshAll().catch((error: unknown) => options.log.error({ err: error }, "sweep failed"));
        }, SWEEP_INTERVAL_MS);
  sweep?.unref();
  const withdrawals = await watchWithdrawals(store.db, (withdrawal) => links.withdraw(withdrawal), options.log);
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port, options.host, () => resolve());
  });
  const address = http.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  const served =
    options.metricsListen === undefined
      ? undefined
      : await serveMetrics(metrics, options.metricsListen.host, options.metricsListen.port);
  return {
    url: `ws://${host}:${port}`,
    publicKey: routerKey.publicKey,
    admission,
    ...(served === undefined ? {} : { metricsUrl: `${served.url}/metrics` }),
    async close() {
      if (sweep !== undefined) clearInterval(sweep);
      await withdrawals.stop();
      if (served !== undefined) await new Promise<void>((resolve) => served.server.close(() => resolve()));
      await links.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await writer.close();
      await bus.close();
      await store.close();
    },
  };
}

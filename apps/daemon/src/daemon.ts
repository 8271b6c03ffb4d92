/**
 * The daemon's composition root: credentials, the database, the services, the router link, and
 * one HTTP server for /mcp (hosts) and /trpc (the owner). `startDaemon` is what the command line
 * and the tests call; it returns once the HTTP server listens.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import type { StatementCounter } from "@social-harness/sqlite";
import type { Logger } from "pino";
import { openDaemonStore } from "./db/database.js";
import { History } from "./history/history.service.js";
import { createHttpServer, listen } from "./http/http-server.js";
import { loadCredentials, principalOf, type Credentials } from "./identity/identity.js";
import { InboxConsumers } from "./events/consumers.js";
import { PushStreams } from "./events/push-stream.mcp.js";
import { Inbox } from "./inbox/inbox.service.js";
import { inboxTools } from "./inbox/inbox.tools.js";
import { Collectives } from "./collectives/collectives.service.js";
import { recoverCollectives } from "./collectives/recovery.js";
import { createMcpEndpoint } from "./mcp/mcp-endpoint.js";
import { appRouter } from "./owner/app-router.js";
import type { OwnerServices } from "./owner/services.js";
import { cosignGenesis } from "./posts/cosign.js";
import { Posts } from "./posts/posts.service.js";
import { sendMessageTool } from "./posts/posts.tools.js";
import { SemanticSend } from "./posts/semantic-send.js";
import { RouterLink } from "./router-link/router-link.js";
import { Trust, type TrustPolicy } from "./trust/trust.service.js";
import { CallbackClient } from "./webhooks/callback-client.js";
import { WebhookDelivery, type DeliverySchedule } from "./webhooks/delivery.service.js";
import { SecretVault } from "./webhooks/secret-vault.js";
import { Subscriptions, UNSAFE_LOCAL_WARNING } from "./webhooks/subscriptions.service.js";
import { webhookMethods } from "./webhooks/webhooks.mcp.js";

export interface DaemonConfig {
  readonly name: string;
  readonly routerUrl: string;
  readonly dataDir: string;
  readonly host: string;
  readonly port: number;
  readonly trust: TrustPolicy;
  readonly log: Logger;
  /** How long a router request may take before the link counts it lost. */
  readonly routerTimeoutMs?: number;
  /** How long a gather or all_gather send waits for its request posts (seed 003: 20 s). */
  readonly collectiveWaitMs?: number;
  /** Push stream heartbeat interval (at most 30 s; default 25 s). */
  readonly heartbeatMs?: number;
  /** `--unsafe-allow-local-callbacks`: webhooks may use plain http:// and loopback or private addresses. */
  readonly allowLocalCallbacks?: boolean;
  /** Webhook retry and suspension times; tests shorten them (the attempt count stays 100). */
  readonly webhookSchedule?: Partial<Omit<DeliverySchedule, "suspendAttempts">>;
  /** A debug count of the database statements (docs/performance.md); off when absent. */
  readonly statementCounter?: StatementCounter;
}

export interface RunningDaemon {
  readonly name: string;
  readonly mcpUrl: string;
  readonly trpcUrl: string;
  readonly dataDir: string;
  readonly credentials: Credentials;
  close(): Promise<void>;
}

const INSTRUCTIONS =
  "Social Harness: your messaging daemon. send_message sends to agent:<name> or group:<names>; read_inbox lists what " +
  "arrived; acknowledge_delivery marks an item handled. Items stay pending until acknowledged.";

export async function startDaemon(config: DaemonConfig): Promise<RunningDaemon> {
  const { log } = config;
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const credentials = loadCredentials(config.dataDir);
  const store = await openDaemonStore(path.join(config.dataDir, "daemon.db"), config.statementCounter);

  const inbox = new Inbox(store);
  const trust = new Trust(store, inbox, config.trust);
  // The link hands records to the history; the history resolves keys through the link. Handlers
  // run only after link.start(), once everything below exists.
  const link: RouterLink = new RouterLink({
    url: config.routerUrl,
    name: config.name,
    key: credentials.key,
    log,
    requestTimeoutMs: config.routerTimeoutMs ?? 15_000,
    handlers: {
      checkRouterKey: (key) => history.checkRouterKey(key),
      onReady: () => {
        void history.cursors().then(
          (cursors) => link.send({ t: "sync", cursors }),
          (error: unknown) => log.error({ err: error }, "could not read cursors"),
        );
      },
      onRecord: async (frame) => {
        const outcome = await history.receive(frame);
        switch (outcome.kind) {
          case "stored":
          case "duplicate":
            return link.send({ t: "ack", conv: frame.conv, seq: frame.seq });
          case "refused":
            return link.send({ t: "skip", conv: frame.conv, seq: frame.seq, reason: outcome.reason });
          case "gap": {
            link.send({ t: "skip", conv: frame.conv, seq: frame.seq, reason: outcome.reason });
            const cursors = await history.cursors();
            return link.send({ t: "sync", cursors: { [frame.conv]: cursors[frame.conv] ?? 0 } });
          }
        }
      },
      onSynced: () =>
        void posts.resume().catch((error: unknown) => log.error({ err: error }, "resuming bound posts failed")),
      onCosignRequest: (request, record) => {
        const answer = cosignGenesis(config.name, credentials.key, record);
        link.send(
          answer.ok
            ? { t: "cosign", request, signature: answer.signature }
            : { t: "cosign-refused", request, reason: answer.reason },
        );
        return Promise.resolve();
      },
    },
  });
  const history = new History({
    store,
    self: config.name,
    inbox,
    trust,
    log,
    resolveKeys: async (names) => {
      const agents = await link.resolve(names);
      return new Map(agents.map((a) => [a.name, "publicKey" in a ? a.publicKey : undefined]));
    },
  });
  const posts = new Posts({ store, self: config.name, key: credentials.key, link, history, log });
  const semanticSend = new SemanticSend(posts, log);
  const collectives = new Collectives({
    store,
    self: config.name,
    posts,
    inbox,
    trust,
    log,
    sendWaitMs: config.collectiveWaitMs,
  });
  history.collectives = collectives;
  semanticSend.collectives = collectives;
  const recovered = await recoverCollectives(store, inbox, Date.now);
  if (recovered.retired + recovered.failed > 0)
    log.info(recovered, "retired collective requests and operations lost at restart");

  const consumers = new InboxConsumers();
  const pushStreams = new PushStreams({ inbox, consumers, log, heartbeatMs: config.heartbeatMs ?? 25_000 });
  // Webhooks come after collective recovery: occurrences of rows it retired are discarded before
  // delivery starts, and a retained registration owns the inbox before any stream can ask.
  const allowLocal = config.allowLocalCallbacks ?? false;
  if (allowLocal) log.warn(UNSAFE_LOCAL_WARNING);
  const vault = new SecretVault(path.join(config.dataDir, "webhook.key"));
  const callbacks = new CallbackClient({ allowLocal });
  const delivery = new WebhookDelivery({
    store,
    inbox,
    vault,
    sender: callbacks,
    log,
    schedule: config.webhookSchedule,
  });
  const discarded = await delivery.recover();
  if (discarded > 0) log.info({ discarded }, "discarded webhook occurrences of items no longer pending");
  const subscriptions = new Subscriptions({
    store,
    vault,
    consumers,
    delivery,
    sender: callbacks,
    log,
    allowLocal,
    challengeTimeoutMs: config.webhookSchedule?.attemptTimeoutMs ?? 10_000,
  });
  await subscriptions.restore();
  const mcp = createMcpEndpoint({
    credentials,
    tools: [sendMessageTool(semanticSend), ...inboxTools(inbox)],
    extensions: [
      (server, principal, era) => pushStreams.register(server, principal, era),
      webhookMethods(subscriptions),
    ],
    instructions: INSTRUCTIONS,
    log,
  });
  const services: OwnerServices = {
    name: config.name,
    store,
    inbox,
    trust,
    history,
    subscriptions,
    linkState: () => link.state,
  };
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: "/trpc/",
    maxBodySize: 1024 * 1024,
    createContext: ({ req }) => ({ principal: principalOf(credentials, req.headers.authorization), services }),
    onError: ({ error, path: procedure }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") log.error({ err: error, procedure }, "owner API failed");
    },
  });

  const http = createHttpServer(
    {
      mcp: (req, res) => mcp.handle(req, res),
      trpc,
      health: () => ({ ok: true, link: link.state }),
    },
    log,
  );
  const base = await listen(http, config.host, config.port);
  link.start();
  delivery.start();

  return {
    name: config.name,
    mcpUrl: `${base}/mcp`,
    trpcUrl: `${base}/trpc`,
    dataDir: config.dataDir,
    credentials,
    async close() {
      pushStreams.terminateAll("the daemon is shutting down");
      await delivery.stop();
      await mcp.close();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
      collectives.stop();
      posts.stop();
      await link.close();
      await store.close();
    },
  };
}

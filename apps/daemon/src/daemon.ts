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
import { Collectives } from "./collectives/collectives.service.js";
import { openDaemonStore } from "./db/database.js";
import { InboxConsumers } from "./events/consumers.js";
import { PushStreams } from "./events/push-stream.mcp.js";
import { armedFaults, wrapBindIntents, wrapMulticast, wrapTextSender, type FaultPoint } from "./faults/faults.js";
import { findChecks } from "./firewall/checks.store.js";
import { Firewall } from "./firewall/firewall.service.js";
import { InboundFirewall } from "./firewall/inbound.service.js";
import { OutboundFirewall } from "./firewall/outbound.service.js";
import { FirewallPolicies } from "./firewall/policy.service.js";
import { History } from "./history/history.service.js";
import { VerifiedRecords } from "./history/verified-records.js";
import { Holds } from "./holds/holds.service.js";
import { createHttpServer, listen } from "./http/http-server.js";
import { loadCredentials, principalOf, type Credentials } from "./identity/identity.js";
import { PeerKeys } from "./identity/peer-keys.js";
import { Inbox } from "./inbox/inbox.service.js";
import { DaemonMetrics } from "./metrics/daemon-metrics.js";
import { inboxTools } from "./inbox/inbox.tools.js";
import { Admission } from "./ingress/admission.js";
import { Ingress } from "./ingress/ingress.service.js";
import { createMcpEndpoint } from "./mcp/mcp-endpoint.js";
import { appRouter } from "./owner/app-router.js";
import type { OwnerServices } from "./owner/services.js";
import { Overview } from "./overview/overview.service.js";
import { bindChecked } from "./posts/checked-binding.js";
import { Posts } from "./posts/posts.service.js";
import { sendMessageTool } from "./posts/posts.tools.js";
import { SemanticSend } from "./posts/semantic-send.js";
import { postsRouterOf } from "./router-link/posts-port.js";
import { RecordFeed } from "./router-link/record-feed.js";
import { RouterKey } from "./identity/router-key.js";
import { RouterLink } from "./router-link/router-link.js";
import { Trust, type TrustPolicy } from "./trust/trust.service.js";
import { CallbackClient } from "./webhooks/callback-client.js";
import type { DeliverySchedule } from "./webhooks/delivery-schedule.js";
import { WebhookDelivery } from "./webhooks/delivery.service.js";
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
  /** Test-only fault points (faults/faults.ts); the command line refuses them outside tests. */
  readonly faults?: readonly FaultPoint[];
  /** `--firewall-policy <file>`: applied as a new policy revision at start when it differs. */
  readonly firewallPolicyFile?: string;
  /** How many inbound firewall checks run at once (default 4). */
  readonly firewallWorkers?: number;
  /** `--registration-token`: presented to a router that admits new names by token. */
  readonly registrationToken?: string;

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

const REGISTERED_WAIT_MS = 2_000;

/** Asks the router whether `name` is registered; null when the link is down or slow (an owner hint only). */
async function registeredAtRouter(link: RouterLink, name: string): Promise<boolean | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), REGISTERED_WAIT_MS)));
  const asked = link.resolve([name]).then(
    ([agent]) => agent !== undefined && "publicKey" in agent,
    () => null,
  );
  try {
    return await Promise.race([asked, late]);
  } finally {
    clearTimeout(timer);
  }
}

export async function startDaemon(config: DaemonConfig): Promise<RunningDaemon> {
  const { log } = config;
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const credentials = loadCredentials(config.dataDir);
  const store = await openDaemonStore(path.join(config.dataDir, "daemon.db"), {
    counter: config.statementCounter,
    sync: {
      onMove: (to, medianMs) =>
        log.info({ medianMs, to }, `WAL fsyncs now run on the ${to === "loop" ? "event loop" : "thread pool"}`),
    },
  });

  const metrics: DaemonMetrics = new DaemonMetrics({
    inboxPending: () => inbox.pendingCount(),
    held: () => holds.openCount(),
    suspendedSubscriptions: async (): Promise<number> => (await subscriptions.troubled()).suspended,
    walFsyncs: () => store.fsyncs(),
  });
  const inbox = new Inbox(store, Date.now, () => metrics.acknowledged());
  const trust = new Trust(store, config.trust);
  const history = new History(store);
  const verified = new VerifiedRecords();
  const holds = new Holds(store, inbox, history, (ids) => findChecks(store.db, ids));
  const routerKey = new RouterKey(store.db);
  const faults = armedFaults(config.faults);
  const policies = new FirewallPolicies(store, config.dataDir, log, Date.now, (assessment) =>
    metrics.assessed(assessment),
  );
  await policies.load();
  if (config.firewallPolicyFile !== undefined) await policies.applyFile(config.firewallPolicyFile);
  const link = new RouterLink({
    url: config.routerUrl,
    name: config.name,
    key: credentials.key,
    routerKey,
    log,
    requestTimeoutMs: config.routerTimeoutMs ?? 15_000,
    registrationToken: config.registrationToken,
    durable: () => store.durable(),
  });
  const peerKeys = new PeerKeys(store.db, (names) => link.resolve(names));
  const posts = new Posts({
    store,
    self: config.name,
    key: credentials.key,
    router: postsRouterOf(link, peerKeys),
    history,
    routerKey,
    bindIntents: wrapBindIntents(faults, bindChecked),
    sendCheck: new OutboundFirewall({ store, self: config.name, policies, history, log }),
    verified,
    log,
  });
  const collectives = new Collectives({
    store,
    self: config.name,
    posts,
    inbox,
    history,
    log,
    sendWaitMs: config.collectiveWaitMs,
  });
  const semanticSend = wrapTextSender(faults, new SemanticSend(wrapMulticast(faults, posts), collectives, log));
  const inboundFirewall: InboundFirewall = new InboundFirewall({
    store,
    self: config.name,
    policies,
    admission: (): Admission => admission,
    log,
    workers: config.firewallWorkers,
  });
  const admission: Admission = new Admission({
    store,
    trust,
    holds,
    inbox,
    history,
    firewall: inboundFirewall,
    closes: collectives,
    answers: collectives,
    arrived: (at) => policies.clock.arrived(at),
  });
  const ingress = new Ingress({
    store,
    self: config.name,
    history,
    peerKeys,
    routerKey,
    collectives,
    admission,
    firewall: inboundFirewall,
    inbox,
    posts,
    verified,
    log,
  });
  const recovered = await collectives.recover();
  if (recovered.retired + recovered.failed + recovered.completed > 0)
    log.info(recovered, "ended collective requests and operations a restart interrupted");
  // Checks a crash interrupted resume before anything new arrives.
  inboundFirewall.start();

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
    metrics,
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
    tools: [sendMessageTool(semanticSend, metrics), ...inboxTools(inbox)],
    extensions: [
      (server, principal, era) => pushStreams.register(server, principal, era),
      webhookMethods(subscriptions),
    ],
    instructions: INSTRUCTIONS,
    log,
    durable: () => store.durable(),
  });
  const services: OwnerServices = {
    name: config.name,
    inbox,
    trust,
    admission,
    holds,
    firewall: new Firewall(store, config.name, policies, history),
    history,
    subscriptions,
    overview: new Overview(store, config.name),
    linkState: () => link.state,
    linkRefusal: () => link.refusal,
    registered: (name) => registeredAtRouter(link, name),
    durable: () => store.durable(),
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
      metrics: async (req, res) => {
        if (principalOf(credentials, req.headers.authorization) !== "owner") {
          res
            .writeHead(401, { "content-type": "text/plain", "www-authenticate": "Bearer" })
            .end("the owner token is required\n");
          return;
        }
        const { contentType, body } = await metrics.exposition();
        res.writeHead(200, { "content-type": contentType }).end(body);
      },
      health: () => ({ ok: true, link: link.state, ...(link.refusal === undefined ? {} : { refusal: link.refusal }) }),
    },
    log,
  );
  const base = await listen(http, config.host, config.port);
  const feed = new RecordFeed({
    self: config.name,
    key: credentials.key,
    link,
    ingress,
    history,
    posts,
    log,
    durable: () => store.durable(),
  });
  link.start(feed);
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
      callbacks.close();
      await mcp.close();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
      collectives.stop();
      posts.stop();
      await inboundFirewall.stop();
      await link.close();
      await feed.idle();
      await store.close();
    },
  };
}

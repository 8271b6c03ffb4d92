/**
 * The WebSocket endpoint daemons link to. It runs the challenge-response handshake (registering
 * a new name to its first key when admission allows, refusing a name bound to another key), then
 * dispatches frames to the services and forwards committed records and co-signing requests to
 * linked members.
 */
import { randomBytes } from "node:crypto";
import type { Server as HttpServer } from "node:http";
import {
  anatomyClock,
  checkPublicKey,
  decodeBase64url,
  decodeClientFrame,
  encodeBase64url,
  encodeFrame,
  hopAt,
  isAgentName,
  LINK_PROTOCOL,
  linkAuthMessage,
  MAX_FRAME_BYTES,
  membersOfConversation,
  rememberSpan,
  startSpan,
  verifySignature,
  type AdmissionRefusal,
  type ClientFrame,
  type RouterFrame,
} from "@social-harness/protocol";
import type { Logger } from "pino";
import { WebSocketServer, type WebSocket } from "ws";
import type { AppendBatcher, AppendContext } from "../conversations/append.service.js";
import { appendPost } from "../conversations/append.service.js";
import { publishCommitted } from "../conversations/committed.js";
import { membersOf } from "../conversations/conversations.store.js";
import type { GenesisCoordinator } from "../conversations/genesis.service.js";
import type { Registrar } from "../registry/registration.service.js";
import { findAgents } from "../registry/registry.store.js";
import type { RouterMetrics } from "../metrics/router-metrics.js";
import { answerProposal } from "./proposal-answer.js";
import { LinkSession } from "./session.js";

const HANDSHAKE_TIMEOUT_MS = 10_000;
const PING_INTERVAL_MS = 15_000;
const AGENT_KEY_CACHE = 100_000;
const WITHDRAWN = "the router's operator withdrew this name";

export interface LinkServerDeps extends AppendContext {
  readonly appends: AppendBatcher;
  readonly genesis: GenesisCoordinator;
  readonly registrar: Registrar;
  readonly log: Logger;
  readonly metrics?: RouterMetrics;
}

type LinkErrorFrame = Extract<RouterFrame, { t: "link-error" }>;
type AuthenticationOutcome =
  | { ok: true }
  | {
      ok: false;
      reason: "version-mismatch" | "invalid-key" | "bad-signature" | "name-taken" | "not-admitted" | "malformed";
      detail: string;
      admission?: AdmissionRefusal;
    };

export class LinkServer {
  private readonly wss: WebSocketServer;
  private readonly sessions = new Map<string, LinkSession>();
  private readonly groupMembers = new Map<string, readonly string[]>();
  private readonly agentKeys = new Map<string, Uint8Array>();
  /** Names withdrawn while this router ran: no session of them opens. */
  private readonly withdrawn = new Set<string>();
  private readonly pingTimer: NodeJS.Timeout;

  constructor(
    server: HttpServer,
    private readonly deps: LinkServerDeps,
  ) {
    this.wss = new WebSocketServer({ server, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });
    this.wss.on("connection", (socket) => this.accept(socket));
    deps.bus.onRecord(({ conv, seq }) => {
      void this.membersOf(conv).then(
        (members) => {
          for (const member of members) this.sessions.get(member)?.notify(conv, seq);
        },
        (error: unknown) => deps.log.error({ err: error, conv }, "could not fan out a record"),
      );
    });
    deps.bus.onCosign((message) => {
      if (message.kind !== "request") return;
      const session = this.sessions.get(message.member);
      const record = decodeBase64url(message.record);
      if (session === undefined || record === undefined) return;
      session.send({ t: "cosign-request", request: message.request, record });
      deps.bus.publish({
        type: "cosign",
        body: { kind: "delivered", request: message.request, member: message.member },
      });
    });
    deps.bus.onGap(() => {
      for (const session of this.sessions.values()) {
        session.refresh().catch((error: unknown) => deps.log.error({ err: error }, "refresh after a bus gap failed"));
      }
    });
    this.pingTimer = setInterval(() => this.ping(), PING_INTERVAL_MS);
    this.pingTimer.unref();
  }

  /** Pushes any record a linked daemon may have missed (used by the periodic sweep). */
  async refreshAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.refresh()));
  }

  private async membersOf(conv: string): Promise<readonly string[]> {
    if (conv.startsWith("direct:")) return membersOfConversation(conv) ?? [];
    let members = this.groupMembers.get(conv);
    if (members === undefined) {
      members = await membersOf(this.deps.store.db, conv);
      if (members.length > 0) this.groupMembers.set(conv, members);
    }
    return members;
  }

  private ping(): void {
    for (const socket of this.wss.clients) {
      const alive = socket as WebSocket & { alive?: boolean };
      if (alive.alive === false) {
        socket.terminate();
        continue;
      }
      alive.alive = false;
      socket.ping();
    }
  }

  private accept(socket: WebSocket): void {
    const alive = socket as WebSocket & { alive?: boolean };
    alive.alive = true;
    socket.on("pong", () => (alive.alive = true));
    const nonce = randomBytes(32);
    socket.send(
      encodeFrame({ t: "challenge", protocol: LINK_PROTOCOL, nonce, routerKey: this.deps.routerKey.publicKey }),
    );
    const timer = setTimeout(() => socket.close(4000, "handshake timeout"), HANDSHAKE_TIMEOUT_MS);
    let session: LinkSession | undefined;
    let handshake: Promise<void> | undefined;
    const refuse = (reason: LinkErrorFrame["reason"], detail: string, admission?: AdmissionRefusal) => {
      socket.send(encodeFrame({ t: "link-error", reason, detail, ...(admission === undefined ? {} : { admission }) }));
      socket.close(4001, reason);
    };
    socket.on("message", (data: Buffer, isBinary: boolean) => {
      const arrived = anatomyClock();
      const decoded = isBinary
        ? decodeClientFrame(new Uint8Array(data.buffer, data.byteOffset, data.byteLength))
        : undefined;
      if (decoded === undefined || !decoded.ok) {
        refuse("malformed", decoded?.reason ?? "frames are binary CBOR");
        return;
      }
      const frame = decoded.frame;
      if (session === undefined) {
        if (frame.t !== "authenticate" || handshake !== undefined) {
          refuse("not-authenticated", "authenticate first");
          return;
        }
        handshake = this.authenticate(frame, nonce).then(
          (result) => {
            clearTimeout(timer);
            if (!result.ok) return refuse(result.reason, result.detail, result.admission);
            if (socket.readyState !== socket.OPEN) return;
            // Withdrawn while its registration was being read: the next attempt is refused.
            if (this.withdrawn.has(frame.name)) return socket.close(4003, WITHDRAWN);
            session = new LinkSession(
              frame.name,
              frame.publicKey,
              socket,
              this.deps.store,
              this.deps.recent,
              this.deps.log,
              frame.echoOwn !== false,
            );
            this.sessions.get(frame.name)?.close(4002, "replaced by a newer link");
            this.sessions.set(frame.name, session);
            session.send({ t: "authenticated", name: frame.name });
            this.deps.log.info({ agent: frame.name }, "daemon linked");
          },
          (error: unknown) => {
            this.deps.log.error({ err: error }, "authentication failed");
            refuse("internal", "authentication failed");
          },
        );
        return;
      }
      if (frame.t === "propose") hopAt("router.received", arrived, session.name);
      this.dispatch(session, frame).catch((error: unknown) => {
        this.deps.log.error({ err: error, agent: session?.name, frame: frame.t }, "frame handling failed");
        if ("id" in frame)
          session?.send({ t: "refused", id: frame.id, reason: "internal", detail: "the router failed" });
      });
    });
    socket.on("close", () => {
      clearTimeout(timer);
      if (session === undefined) return;
      session.markClosed();
      if (this.sessions.get(session.name) === session) this.sessions.delete(session.name);
    });
    socket.on("error", (error) => this.deps.log.warn({ err: error }, "link socket error"));
  }

  private async authenticate(
    frame: Extract<ClientFrame, { t: "authenticate" }>,
    nonce: Uint8Array,
  ): Promise<AuthenticationOutcome> {
    if (frame.protocol !== LINK_PROTOCOL) {
      return {
        ok: false,
        reason: "version-mismatch",
        detail: `this router speaks link protocol ${LINK_PROTOCOL}, not ${frame.protocol}`,
      };
    }
    if (!isAgentName(frame.name)) return { ok: false, reason: "malformed", detail: "malformed agent name" };
    const key = checkPublicKey(frame.publicKey);
    if (!key.ok) return { ok: false, reason: "invalid-key", detail: `the public key is ${key.reason}` };
    if (!verifySignature(frame.publicKey, linkAuthMessage(nonce, frame.name), frame.signature)) {
      return { ok: false, reason: "bad-signature", detail: "the challenge signature does not verify" };
    }
    const registration = await this.deps.registrar.register({
      name: frame.name,
      publicKey: frame.publicKey,
      registrationToken: frame.registrationToken,
    });
    if (!registration.ok) {
      this.deps.log.warn(
        {
          agent: frame.name,
          reason: registration.reason,
          admission: this.deps.registrar.mode,
          detail: registration.detail,
        },
        "refused a registration",
      );
      return registration.reason === "not-admitted"
        ? { ok: false, reason: "not-admitted", detail: registration.detail, admission: registration.admission }
        : { ok: false, reason: "name-taken", detail: registration.detail };
    }
    if (registration.registered === "now") {
      this.deps.log.info({ agent: frame.name, admission: this.deps.registrar.mode }, "registered a new agent");
    }
    this.deps.knownAgents.add(frame.name);
    return { ok: true };
  }

  private async dispatch(session: LinkSession, frame: ClientFrame): Promise<void> {
    switch (frame.t) {
      case "authenticate":
        return session.send({ t: "link-error", reason: "malformed", detail: "already authenticated" });
      case "sync":
        return session.sync(frame.cursors);
      case "ack":
        return session.acknowledge();
      case "skip":
        this.deps.log.warn(
          { agent: session.name, conv: frame.conv, seq: frame.seq, reason: frame.reason },
          "a daemon did not store a pushed record",
        );
        return session.acknowledge();
      case "resolve": {
        const agents = await this.resolveAgents(frame.names.filter(isAgentName));
        session.send({
          t: "resolved",
          id: frame.id,
          agents: frame.names.map((name) => {
            if (!isAgentName(name)) return { name, error: "invalid-name" as const };
            const agent = agents.get(name);
            return agent === undefined
              ? { name, error: "unknown-agent" as const }
              : { name, publicKey: agent.publicKey };
          }),
        });
        return;
      }
      case "propose": {
        const started = performance.now();
        // Tracing: a child of the author's propose span, whose context the frame carries.
        const span = startSpan("certify", frame.traceparent, { "social_harness.author": session.name });
        const outcome = await appendPost(this.deps, this.deps.appends, session, frame.record, frame.signature);
        // The author's answer leaves first; the pushes to the members follow it.
        answerProposal(session, frame.id, outcome, started, this.deps.metrics);
        if (outcome.kind === "certified") session.answeredOwn(outcome.record.conv, outcome.record.seq);
        if (span !== undefined) {
          span.setAttributes({ "social_harness.outcome": outcome.kind });
          if (outcome.kind === "certified") {
            const { conv, seq, hash } = outcome.record;
            span.setAttributes({
              "social_harness.conv": conv,
              "social_harness.seq": seq,
              "social_harness.record": hash,
            });
            // The pushes of the certified record hang under this span (session.ts).
            rememberSpan(hash, span);
          }
          span.end();
        }
        publishCommitted(this.deps, outcome);
        return;
      }
      case "open-group": {
        const started = performance.now();
        const outcome = await this.deps.genesis.open(session, frame.record, frame.signature);
        return answerProposal(session, frame.id, outcome, started, this.deps.metrics);
      }
      case "cosign":
        this.deps.bus.publish({
          type: "cosign",
          body: {
            kind: "signature",
            request: frame.request,
            member: session.name,
            signature: encodeBase64url(frame.signature),
          },
        });
        return;
      case "cosign-refused":
        this.deps.bus.publish({
          type: "cosign",
          body: { kind: "refused", request: frame.request, member: session.name, reason: frame.reason },
        });
        return;
    }
  }

  /**
   * Registered agents' keys, read once: a name stays bound to its first key until it is withdrawn,
   * which drops it here (on PostgreSQL another router may add names, so only found names are kept).
   */
  private async resolveAgents(names: readonly string[]): Promise<Map<string, { publicKey: Uint8Array }>> {
    const found = new Map<string, { publicKey: Uint8Array }>();
    const missing = names.filter((name) => {
      const publicKey = this.agentKeys.get(name);
      if (publicKey !== undefined) found.set(name, { publicKey });
      return publicKey === undefined;
    });
    if (missing.length === 0) return found;
    for (const [name, agent] of await findAgents(this.deps.store.db, missing)) {
      if (this.agentKeys.size < AGENT_KEY_CACHE) this.agentKeys.set(name, agent.publicKey);
      found.set(name, agent);
    }
    return found;
  }

  /**
   * Applies a withdrawal (`router agent withdraw`, read from the database by the router's watch):
   * the name's key is forgotten, and its link, if it is linked here, is closed. Its daemon's next
   * attempt to link is refused by registration.
   */
  withdraw(withdrawal: { readonly name: string }): void {
    const { name } = withdrawal;
    this.withdrawn.add(name);
    this.agentKeys.delete(name);
    this.deps.knownAgents.delete(name);
    const session = this.sessions.get(name);
    if (session !== undefined) {
      this.sessions.delete(name);
      session.close(4003, WITHDRAWN);
      this.deps.log.info({ agent: name }, "closed the link of a withdrawn name");
    }
  }

  /** How many daemons are linked now. */
  get linkCount(): number {
    return this.sessions.size;
  }

  async close(): Promise<void> {
    clearInterval(this.pingTimer);
    for (const session of this.sessions.values()) session.close(1001, "router shutting down");
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}

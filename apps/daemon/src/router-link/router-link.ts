/**
 * The daemon's connection to its router: one WebSocket, reconnected with backoff. It pins the
 * router's key on first contact, answers the challenge with the agent's identity, correlates
 * requests with answers, and hands pushed frames to its consumer (the record feed) strictly one
 * after another, in arrival order.
 */
import {
  hop,
  type AdmissionRefusal,
  corkForTurn,
  decodeRouterFrame,
  encodeFrame,
  LINK_PROTOCOL,
  linkAuthMessage,
  MAX_FRAME_BYTES,
  startSpan,
  tracingOn,
  type ClientFrame,
  type LinkRefusal,
  type RecordFrame,
  type ResolvedAgent,
  type RouterFrame,
  type SigningKey,
  type TraceSpan,
} from "@social-harness/protocol";
import type { Logger } from "pino";
import WebSocket from "ws";
import type { RouterKey } from "../identity/router-key.js";
import { ingressArrived } from "./ingress-spans.js";

/** Why the link cannot carry a request right now. */
export type LinkState = "connecting" | "ready" | "offline" | "not-registered" | "version-mismatch" | "router-untrusted";

/** Why the router refused this daemon's link: its closed reason, and admission's when it is one. */
export interface LinkRefused {
  readonly reason: LinkRefusal;
  readonly admission?: AdmissionRefusal;
  readonly detail: string;
}

export class LinkUnavailable extends Error {
  override readonly name = "LinkUnavailable";
  constructor(
    readonly state: Exclude<LinkState, "ready">,
    /** The router's refusal, when the state is one (not-registered, version-mismatch). */
    readonly refusal?: LinkRefused,
  ) {
    super(`the router link is ${state}`);
  }
}

/** The request reached the router, or may have; its answer was lost or came too late. */
export class LinkLost extends Error {
  override readonly name = "LinkLost";
}

export type ProposalAnswer = Extract<RouterFrame, { t: "certified" | "head-moved" | "refused" }>;

/** What the link hands pushed frames to, one at a time (router-link/record-feed.ts). */
export interface LinkConsumer {
  /** The link authenticated; the consumer answers with its cursors. */
  onReady(): void;
  onRecord(frame: RecordFrame): Promise<void>;
  onCosignRequest(request: string, record: Uint8Array): Promise<void>;
  onSynced(): void;
  /** A certificate came for a proposal that timed out: the router will not push that post. */
  onUnclaimedCertificate(conv: string): void;
}

export interface RouterLinkOptions {
  readonly url: string;
  readonly name: string;
  readonly key: SigningKey;
  readonly routerKey: RouterKey;
  readonly log: Logger;
  readonly requestTimeoutMs: number;
  /** Presented at authentication; the router uses it only to register a new name. */
  readonly registrationToken?: string;
  /** Resolves once every durable commit so far is on disk: a proposal names a bound intent. */
  readonly durable?: () => Promise<void>;
}

interface Pending {
  resolve(frame: RouterFrame): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

const MAX_BACKOFF_MS = 5_000;
const CONNECT_GRACE_MS = 3_000;
const PING_INTERVAL_MS = 10_000;

export class RouterLink {
  private socket: WebSocket | undefined;
  private linkState: LinkState = "connecting";
  private linkRefusal: LinkRefused | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private inbound: Promise<void> = Promise.resolve();
  private backoff = 200;
  private stopped = false;
  private readyWaiters: (() => void)[] = [];
  private reconnectTimer: NodeJS.Timeout | undefined;
  private consumer: LinkConsumer | undefined;
  /** Proposals wait for the disk in the order they were made, so they leave in that order. */
  private proposals: Promise<void> = Promise.resolve();

  constructor(private readonly options: RouterLinkOptions) {}

  get state(): LinkState {
    return this.linkState;
  }

  /** The router's last refusal of this link, until it next authenticates. */
  get refusal(): LinkRefused | undefined {
    return this.linkRefusal;
  }

  /** Connects, and keeps connecting; pushed frames go to `consumer`. */
  start(consumer: LinkConsumer): void {
    this.consumer = consumer;
    this.connect();
  }

  /** Resolves once the link is ready, or throws LinkUnavailable; waits briefly while connecting. */
  async ready(): Promise<void> {
    if (this.linkState === "connecting") {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, CONNECT_GRACE_MS);
        this.readyWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    const state = this.linkState;
    if (state !== "ready") throw new LinkUnavailable(state, this.linkRefusal);
  }

  private setState(state: LinkState): void {
    this.linkState = state;
    if (state !== "connecting") {
      for (const wake of this.readyWaiters.splice(0)) wake();
    }
  }

  private connect(): void {
    if (this.stopped) return;
    const socket = new WebSocket(this.options.url, { perMessageDeflate: false, maxPayload: MAX_FRAME_BYTES });
    this.socket = socket;
    socket.on("message", (data: Buffer, isBinary: boolean) => {
      if (!isBinary) return this.options.log.warn("ignored a text frame from the router");
      const read = decodeRouterFrame(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      if (!read.ok) {
        this.options.log.warn({ reason: read.reason }, "refused a malformed frame from the router");
        return;
      }
      this.handle(socket, read.frame);
    });
    // A router that stops answering pings (crashed host, stopped process) is a lost link.
    let alive = true;
    socket.on("pong", () => (alive = true));
    const heartbeat = setInterval(() => {
      if (!alive) return socket.terminate();
      alive = false;
      if (socket.readyState === WebSocket.OPEN) socket.ping();
    }, PING_INTERVAL_MS);
    heartbeat.unref();
    socket.on("close", () => {
      clearInterval(heartbeat);
      this.closed(socket);
    });
    socket.on("error", (error) => {
      this.options.log.debug({ err: error }, "router link error");
      if (this.linkState === "connecting") this.setState("offline");
    });
  }

  private closed(socket: WebSocket): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(new LinkLost("the router link closed before the answer"));
      this.pending.delete(id);
    }
    const terminal =
      this.linkState === "not-registered" ||
      this.linkState === "version-mismatch" ||
      this.linkState === "router-untrusted";
    if (!terminal) this.setState(this.stopped ? "offline" : this.linkState === "ready" ? "connecting" : "offline");
    if (this.stopped) return;
    // A refused identity or protocol does not heal by retrying fast; retry slowly.
    const delay = terminal ? 30_000 : this.backoff;
    this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
    this.reconnectTimer.unref();
  }

  private handle(socket: WebSocket, frame: RouterFrame): void {
    switch (frame.t) {
      case "challenge":
        void this.answerChallenge(socket, frame);
        return;
      case "authenticated":
        this.backoff = 200;
        this.linkRefusal = undefined;
        this.setState("ready");
        this.options.log.info({ router: this.options.url }, "linked to the router");
        this.consumer?.onReady();
        return;
      case "link-error": {
        this.options.log.error(
          { reason: frame.reason, admission: frame.admission, detail: frame.detail },
          "the router refused the link",
        );
        this.linkRefusal = {
          reason: frame.reason,
          detail: frame.detail,
          ...(frame.admission === undefined ? {} : { admission: frame.admission }),
        };
        if (
          frame.reason === "name-taken" ||
          frame.reason === "not-admitted" ||
          frame.reason === "invalid-key" ||
          frame.reason === "bad-signature"
        ) {
          this.setState("not-registered");
        } else if (frame.reason === "version-mismatch") {
          this.setState("version-mismatch");
        }
        return;
      }
      case "record":
        hop("router-link.record-received");
        if (tracingOn()) ingressArrived(frame);
        this.enqueue((consumer) => consumer.onRecord(frame));
        return;
      case "cosign-request":
        this.enqueue((consumer) => consumer.onCosignRequest(frame.request, frame.record));
        return;
      case "synced":
        this.enqueue((consumer) => {
          consumer.onSynced();
          return Promise.resolve();
        });
        return;
      case "resolved":
      case "certified":
      case "head-moved":
      case "refused": {
        const pending = this.pending.get(frame.id);
        if (pending === undefined) {
          if (frame.t === "certified") this.consumer?.onUnclaimedCertificate(frame.conv);
          return;
        }
        this.pending.delete(frame.id);
        clearTimeout(pending.timer);
        pending.resolve(frame);
        return;
      }
    }
  }

  /** Pushed frames are handled strictly one after another, in arrival order. */
  private enqueue(task: (consumer: LinkConsumer) => Promise<void>): void {
    const consumer = this.consumer;
    if (consumer === undefined) return;
    this.inbound = this.inbound
      .then(() => task(consumer))
      .catch((error: unknown) => {
        this.options.log.error({ err: error }, "handling a pushed frame failed");
      });
  }

  private async answerChallenge(socket: WebSocket, frame: Extract<RouterFrame, { t: "challenge" }>): Promise<void> {
    if (frame.protocol !== LINK_PROTOCOL) {
      this.options.log.error(
        { router: frame.protocol, daemon: LINK_PROTOCOL },
        "the router speaks another link protocol",
      );
      this.setState("version-mismatch");
      socket.close();
      return;
    }
    if (!(await this.options.routerKey.check(frame.routerKey))) {
      this.options.log.error("the router's key differs from the one pinned at first contact; refusing it");
      this.setState("router-untrusted");
      socket.close();
      return;
    }
    this.sendOn(socket, {
      t: "authenticate",
      protocol: LINK_PROTOCOL,
      name: this.options.name,
      publicKey: this.options.key.publicKey,
      signature: this.options.key.sign(linkAuthMessage(frame.nonce, this.options.name)),
      echoOwn: false, // our posts are stored from their certificates (record-feed.ts)
      ...(this.options.registrationToken === undefined ? {} : { registrationToken: this.options.registrationToken }),
    });
  }

  /** Frames sent in one turn of the event loop leave in one write (corkForTurn). */
  private sendOn(socket: WebSocket, frame: ClientFrame): void {
    if (socket.readyState !== WebSocket.OPEN) return;
    corkForTurn(socket);
    socket.send(encodeFrame(frame));
  }

  /** Sends a frame that needs no answer, if the link is up. */
  send(frame: ClientFrame): void {
    if (this.socket !== undefined && this.linkState === "ready") this.sendOn(this.socket, frame);
  }

  private async request<T extends RouterFrame>(
    build: (id: number) => ClientFrame,
    timeoutMs = this.options.requestTimeoutMs,
  ): Promise<T> {
    await this.ready();
    const socket = this.socket;
    if (socket === undefined) throw new LinkUnavailable("offline");
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new LinkLost(`no answer from the router within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (f: RouterFrame) => void, reject, timer });
      this.sendOn(socket, build(id));
    });
  }

  async resolve(names: readonly string[]): Promise<ResolvedAgent[]> {
    const answer = await this.request<Extract<RouterFrame, { t: "resolved" }>>((id) => ({
      t: "resolve",
      id,
      names: [...names],
    }));
    return answer.agents;
  }

  private bound(): Promise<void> {
    const durable = this.options.durable;
    if (durable === undefined) return Promise.resolve();
    const turn = this.proposals.then(durable);
    this.proposals = turn.catch(() => undefined);
    return turn;
  }

  /** Proposes a record once its bound intent is on disk (seed 001: durable before proposed). */
  async propose(record: Uint8Array, signature: Uint8Array): Promise<ProposalAnswer> {
    await this.bound();
    hop("posts.intent-fsynced");
    let span: TraceSpan | undefined;
    let answer: ProposalAnswer;
    try {
      answer = await this.request<ProposalAnswer>((id) => {
        hop("posts.proposal-written");
        // The span's context goes to the router in the frame, beside the signed record (never in it).
        span = startSpan("propose");
        const traceparent = span?.traceparent;
        return traceparent === undefined
          ? { t: "propose", id, record, signature }
          : { t: "propose", id, record, signature, traceparent };
      });
    } catch (error) {
      span?.end(error);
      throw error;
    }
    hop("router-link.certified-received");
    if (span !== undefined && answer.t === "certified") {
      span.setAttributes({
        "social_harness.conv": answer.conv,
        "social_harness.seq": answer.seq,
        "social_harness.record": answer.record,
      });
    }
    span?.end();
    return answer;
  }

  async openGroup(record: Uint8Array, signature: Uint8Array): Promise<ProposalAnswer> {
    await this.bound();
    return this.request<ProposalAnswer>((id) => ({ t: "open-group", id, record, signature }));
  }

  async close(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer !== undefined) clearTimeout(this.reconnectTimer);
    const socket = this.socket;
    if (socket !== undefined) {
      await new Promise<void>((resolve) => {
        socket.once("close", () => resolve());
        socket.close();
        setTimeout(resolve, 1_000).unref();
      });
    }
    await this.inbound;
  }
}

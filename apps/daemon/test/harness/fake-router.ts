/**
 * A hand-driven router for tests: it speaks the link protocol (or another version of it) to one
 * real daemon, answers resolutions from its own table, and pushes whatever record frames a test
 * builds, including forged, tampered, replayed and non-canonical ones.
 */
import { createServer, type Server } from "node:http";
import {
  actionMessage,
  decodeClientFrame,
  encodeFrame,
  encodeRecord,
  generateSigningKey,
  LINK_PROTOCOL,
  mintId,
  readRecord,
  recordHashOf,
  signCertificate,
  type ClientFrame,
  type LinkRefusal,
  type RecordDraft,
  type RecordFields,
  type RecordFrame,
  type RouterFrame,
  type SigningKey,
} from "@social-harness/protocol";
import { WebSocketServer, type WebSocket } from "ws";

/** What the fake router does with a proposal: certify it (now or later), refuse it, or drop it. */
export type ProposalPolicy = (proposal: { conv: string; author: string; record: RecordFields }) =>
  | {
      action: "certify";
      delayMs?: number;
      /** Sign the certificate with a key other than the pinned one. */
      forged?: boolean;
      /** Certify at this position instead of the next one. */
      seq?: number;
    }
  | { action: "refuse"; reason: LinkRefusal; detail?: string }
  | { action: "ignore" };

export class FakeRouter {
  readonly key: SigningKey = generateSigningKey();
  /** Heads of the conversations this router certified or pushed. */
  readonly heads = new Map<string, { seq: number; hash: string }>();
  policy: ProposalPolicy = () => ({ action: "certify" });
  readonly agents = new Map<string, SigningKey>();
  readonly received: ClientFrame[] = [];
  private socket: WebSocket | undefined;
  private connectedWaiters: (() => void)[] = [];

  private constructor(
    private readonly http: Server,
    private readonly wss: WebSocketServer,
    readonly url: string,
    readonly protocol: number,
  ) {
    wss.on("connection", (socket) => {
      this.socket = socket;
      socket.send(
        encodeFrame({
          t: "challenge",
          protocol: this.protocol,
          nonce: new Uint8Array(32),
          routerKey: this.key.publicKey,
        }),
      );
      socket.on("message", (data: Buffer) => {
        const read = decodeClientFrame(new Uint8Array(data));
        if (!read.ok) return;
        this.received.push(read.frame);
        this.answer(socket, read.frame);
      });
    });
  }

  static async start(options: { protocol?: number } = {}): Promise<FakeRouter> {
    const http = createServer();
    const wss = new WebSocketServer({ server: http });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
    const address = http.address() as { port: number };
    return new FakeRouter(http, wss, `ws://127.0.0.1:${address.port}`, options.protocol ?? LINK_PROTOCOL);
  }

  agent(name: string): SigningKey {
    let key = this.agents.get(name);
    if (key === undefined) {
      key = generateSigningKey();
      this.agents.set(name, key);
    }
    return key;
  }

  private answer(socket: WebSocket, frame: ClientFrame): void {
    switch (frame.t) {
      case "authenticate":
        this.agents.set(frame.name, { ...this.agent(frame.name), publicKey: frame.publicKey });
        socket.send(encodeFrame({ t: "authenticated", name: frame.name }));
        for (const wake of this.connectedWaiters.splice(0)) wake();
        return;
      case "sync":
        socket.send(encodeFrame({ t: "synced" }));
        return;
      case "propose":
        this.propose(socket, frame);
        return;
      case "open-group":
        this.openGroup(socket, frame);
        return;
      case "resolve":
        socket.send(
          encodeFrame({
            t: "resolved",
            id: frame.id,
            agents: frame.names.map((name) => {
              const key = this.agents.get(name);
              return key === undefined ? { name, error: "unknown-agent" as const } : { name, publicKey: key.publicKey };
            }),
          }),
        );
        return;
      default:
        return;
    }
  }

  /** Certifies a group's GENESIS, co-signed by every member (the fake agents' keys sign here). */
  private openGroup(socket: WebSocket, frame: Extract<ClientFrame, { t: "open-group" }>): void {
    const read = readRecord(frame.record);
    if (!read.ok || this.heads.has(read.record.conv)) return;
    const { record, hash } = read;
    this.heads.set(record.conv, { seq: 1, hash });
    const certificate = signCertificate(this.key, { conv: record.conv, seq: 1, record: hash });
    socket.send(encodeFrame({ t: "certified", id: frame.id, conv: record.conv, seq: 1, record: hash, certificate }));
    const signatures = (record.members ?? []).map((member) => ({
      signer: member,
      signature: member === record.author ? frame.signature : this.agent(member).sign(actionMessage(frame.record)),
    }));
    this.push({ t: "record", conv: record.conv, seq: 1, record: frame.record, signatures, certificate });
  }

  private propose(socket: WebSocket, frame: Extract<ClientFrame, { t: "propose" }>): void {
    const read = readRecord(frame.record);
    if (!read.ok) {
      socket.send(encodeFrame({ t: "refused", id: frame.id, reason: "malformed", detail: read.reason }));
      return;
    }
    const { record, hash } = read;
    const decision = this.policy({ conv: record.conv, author: record.author, record });
    if (decision.action === "ignore") return;
    if (decision.action === "refuse") {
      socket.send(
        encodeFrame({
          t: "refused",
          id: frame.id,
          reason: decision.reason,
          detail: decision.detail ?? "refused by the test",
        }),
      );
      return;
    }
    const certify = () => {
      const head = this.heads.get(record.conv);
      if (record.prev !== (head?.hash ?? null)) {
        socket.send(encodeFrame({ t: "head-moved", id: frame.id, conv: record.conv, head: head?.hash ?? null }));
        return;
      }
      const seq = decision.seq ?? (head?.seq ?? 0) + 1;
      this.heads.set(record.conv, { seq, hash });
      const signer = decision.forged === true ? generateSigningKey() : this.key;
      const certificate = signCertificate(signer, { conv: record.conv, seq, record: hash });
      socket.send(encodeFrame({ t: "certified", id: frame.id, conv: record.conv, seq, record: hash, certificate }));
      this.certified.push({ conv: record.conv, seq, hash, record });
    };
    if (decision.delayMs === undefined) certify();
    else setTimeout(certify, decision.delayMs);
  }

  /** Records this router certified for the daemon, in order. */
  readonly certified: { conv: string; seq: number; hash: string; record: RecordFields }[] = [];

  /** Pushes a record authored by `author` at the head of `conv`, signed and certified. */
  pushNext(author: string, conv: string, content: RecordDraft["content"]): string {
    const head = this.heads.get(conv);
    const bytes = encodeRecord({
      kind: "post",
      conv,
      prev: head?.hash ?? null,
      author,
      postId: mintId("post"),
      at: Date.now(),
      content,
    });
    const seq = (head?.seq ?? 0) + 1;
    const hash = recordHashOf(bytes);
    this.heads.set(conv, { seq, hash });
    this.push(this.frame(author, conv, seq, bytes));
    return hash;
  }

  /** Resolves once a daemon has authenticated. */
  authenticated(): Promise<void> {
    if (this.received.some((f) => f.t === "authenticate")) return Promise.resolve();
    return new Promise((resolve) => this.connectedWaiters.push(resolve));
  }

  draft(author: string, conv: string, prev: string | null, text: string): RecordDraft {
    return {
      kind: "post",
      conv,
      prev,
      author,
      postId: mintId("post"),
      at: Date.now(),
      content: [
        { type: "text", text },
        { type: "collective", op: "multicast" },
      ],
    };
  }

  /** A correctly signed and certified frame for `bytes` at `seq`. */
  frame(
    author: string,
    conv: string,
    seq: number,
    bytes: Uint8Array,
    signer: SigningKey = this.agent(author),
  ): RecordFrame {
    return {
      t: "record",
      conv,
      seq,
      record: bytes,
      signatures: [{ signer: author, signature: signer.sign(actionMessage(bytes)) }],
      certificate: signCertificate(this.key, { conv, seq, record: recordHashOf(bytes) }),
    };
  }

  post(
    author: string,
    conv: string,
    seq: number,
    prev: string | null,
    text: string,
  ): { frame: RecordFrame; hash: string } {
    const bytes = encodeRecord(this.draft(author, conv, prev, text));
    return { frame: this.frame(author, conv, seq, bytes), hash: recordHashOf(bytes) };
  }

  push(frame: RouterFrame): void {
    this.socket?.send(encodeFrame(frame));
  }

  acks(): { conv: string; seq: number }[] {
    return this.received
      .filter((f): f is Extract<ClientFrame, { t: "ack" }> => f.t === "ack")
      .map((f) => ({ conv: f.conv, seq: f.seq }));
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}

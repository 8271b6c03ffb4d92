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
  recordHashOf,
  signCertificate,
  type ClientFrame,
  type RecordDraft,
  type RecordFrame,
  type RouterFrame,
  type SigningKey,
} from "@social-harness/protocol";
import { WebSocketServer, type WebSocket } from "ws";

export class FakeRouter {
  readonly key: SigningKey = generateSigningKey();
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

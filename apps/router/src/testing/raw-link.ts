/**
 * A bare link client for router tests: it speaks the frames directly so tests can send exactly
 * what they mean, including frames a real daemon would never send.
 */
import {
  actionMessage,
  decodeRouterFrame,
  encodeFrame,
  encodeRecord,
  generateSigningKey,
  LINK_PROTOCOL,
  linkAuthMessage,
  mintId,
  type ClientFrame,
  type RecordDraft,
  type RouterFrame,
  type SigningKey,
} from "@social-harness/protocol";
import WebSocket from "ws";

export class RawLink {
  readonly frames: RouterFrame[] = [];
  private waiters: { match: (f: RouterFrame) => boolean; resolve: (f: RouterFrame) => void }[] = [];
  private nextId = 1;
  challenge: Extract<RouterFrame, { t: "challenge" }> | undefined;
  /** Resolves when the socket closes, with the router's close code and reason. */
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(
    readonly socket: WebSocket,
    readonly name: string,
    readonly key: SigningKey,
  ) {
    this.closed = new Promise((resolve) =>
      socket.once("close", (code: number, reason: Buffer) => resolve({ code, reason: reason.toString() })),
    );
    socket.on("message", (data: Buffer) => {
      const read = decodeRouterFrame(new Uint8Array(data));
      if (!read.ok) throw new Error(`router sent a malformed frame: ${read.reason}`);
      if (read.frame.t === "challenge") this.challenge = read.frame;
      this.frames.push(read.frame);
      this.waiters = this.waiters.filter((w) => {
        if (!w.match(read.frame)) return true;
        w.resolve(read.frame);
        return false;
      });
    });
  }

  static async open(url: string, name: string, key: SigningKey = generateSigningKey()): Promise<RawLink> {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    const link = new RawLink(socket, name, key);
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    await link.next((f) => f.t === "challenge");
    return link;
  }

  static async authenticated(
    url: string,
    name: string,
    key?: SigningKey,
    registrationToken?: string,
    echoOwn?: boolean,
  ): Promise<RawLink> {
    const link = await RawLink.open(url, name, key);
    const answer = await link.authenticate(LINK_PROTOCOL, link.key, registrationToken, echoOwn);
    if (answer.t !== "authenticated") throw new Error(`authentication refused: ${JSON.stringify(answer)}`);
    return link;
  }

  send(frame: ClientFrame): void {
    this.socket.send(encodeFrame(frame));
  }

  next<T extends RouterFrame>(match: (f: RouterFrame) => f is T): Promise<T>;
  next(match: (f: RouterFrame) => boolean): Promise<RouterFrame>;
  next(match: (f: RouterFrame) => boolean): Promise<RouterFrame> {
    const seen = this.frames.find(match);
    if (seen !== undefined) {
      this.frames.splice(this.frames.indexOf(seen), 1);
      return Promise.resolve(seen);
    }
    return new Promise((resolve) =>
      this.waiters.push({
        match,
        resolve: (f) => {
          this.frames.splice(this.frames.indexOf(f), 1);
          resolve(f);
        },
      }),
    );
  }

  async authenticate(
    protocol = LINK_PROTOCOL,
    signer: SigningKey = this.key,
    registrationToken?: string,
    echoOwn?: boolean,
  ): Promise<RouterFrame> {
    const nonce = this.challenge!.nonce;
    this.send({
      t: "authenticate",
      protocol,
      name: this.name,
      publicKey: this.key.publicKey,
      signature: signer.sign(linkAuthMessage(nonce, this.name)),
      ...(registrationToken === undefined ? {} : { registrationToken }),
      ...(echoOwn === undefined ? {} : { echoOwn }),
    });
    return this.next((f) => f.t === "authenticated" || f.t === "link-error");
  }

  draft(conv: string, prev: string | null, text: string, postId = mintId("post")): RecordDraft {
    return {
      kind: "post",
      conv,
      prev,
      author: this.name,
      postId,
      at: Date.now(),
      content: [
        { type: "text", text },
        { type: "collective", op: "multicast" },
      ],
    };
  }

  async propose(draft: RecordDraft, frame: "propose" | "open-group" = "propose"): Promise<RouterFrame> {
    const id = this.nextId++;
    const record = encodeRecord(draft);
    this.send({ t: frame, id, record, signature: this.key.sign(actionMessage(record)) });
    return this.next((f) => "id" in f && f.id === id);
  }

  async resolve(names: string[]): Promise<Extract<RouterFrame, { t: "resolved" }>> {
    const id = this.nextId++;
    this.send({ t: "resolve", id, names });
    return (await this.next((f) => f.t === "resolved" && f.id === id)) as Extract<RouterFrame, { t: "resolved" }>;
  }

  close(): void {
    this.socket.close();
  }
}

/**
 * A scripted judge for firewall tests: an OpenAI-compatible `POST /v1/chat/completions` on
 * loopback. Each call is matched against the script by the text of the message being judged; a
 * call nobody scripted answers HTTP 500 and is recorded, and `unscripted` lets a test fail on it.
 * An answer can be held back until the test releases it, to keep a check in flight.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

export interface JudgeCall {
  readonly model: string;
  readonly authorization: string | undefined;
  readonly system: string;
  /** The judged message as the daemon sent it: a JSON document. */
  readonly document: Record<string, unknown>;
}

export type JudgeReply =
  | { readonly choice: string; readonly probability: number }
  | { readonly status: number }
  | { readonly content: string };

interface Scripted {
  readonly match: (call: JudgeCall) => boolean;
  readonly reply: JudgeReply | ((call: JudgeCall) => JudgeReply | Promise<JudgeReply>);
  /** How many calls it answers; Infinity for a standing rule. */
  remaining: number;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) body += String(chunk);
  return body;
}

export class FakeJudge {
  readonly calls: JudgeCall[] = [];
  readonly unscripted: JudgeCall[] = [];
  private readonly script: Scripted[] = [];
  private readonly server: Server = createServer((req, res) => {
    this.handle(req, res).catch(() => res.destroy());
  });
  endpoint = "";

  static async start(): Promise<FakeJudge> {
    const judge = new FakeJudge();
    await new Promise<void>((resolve) => judge.server.listen(0, "127.0.0.1", resolve));
    const address = judge.server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    judge.endpoint = `http://127.0.0.1:${port}/v1`;
    return judge;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(await bodyOf(req)) as { model: string; messages: { role: string; content: string }[] };
    const call: JudgeCall = {
      model: body.model,
      authorization: req.headers.authorization,
      system: body.messages.find((m) => m.role === "system")?.content ?? "",
      document: JSON.parse(body.messages.find((m) => m.role === "user")?.content ?? "{}") as Record<string, unknown>,
    };
    this.calls.push(call);
    const entry = this.script.find((s) => s.remaining > 0 && s.match(call));
    if (entry === undefined) {
      this.unscripted.push(call);
      res.writeHead(500, { "content-type": "application/json" }).end('{"error":"unscripted call"}');
      return;
    }
    entry.remaining--;
    const reply = typeof entry.reply === "function" ? await entry.reply(call) : entry.reply;
    if ("status" in reply) {
      res.writeHead(reply.status).end();
      return;
    }
    const content = "content" in reply ? reply.content : JSON.stringify(reply);
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content } }] }));
  }

  /** Answers calls whose judged text contains `text` (`times` of them; every one by default). */
  on(text: string, reply: Scripted["reply"], times = Number.POSITIVE_INFINITY): void {
    this.script.push({
      match: (call) => typeof call.document.text === "string" && call.document.text.includes(text),
      reply,
      remaining: times,
    });
  }

  /** An answer the test releases later: the judge keeps the check in flight until then. */
  held(text: string, reply: JudgeReply): { release(): void; called: Promise<void> } {
    let release!: () => void;
    let called!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const calledPromise = new Promise<void>((resolve) => (called = resolve));
    this.on(
      text,
      async () => {
        called();
        await released;
        return reply;
      },
      1,
    );
    return { release, called: calledPromise };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * A scripted judge for the bench: an OpenAI-compatible `POST /v1/chat/completions` on loopback
 * that answers from a table keyed by the judged message's text (the score the set's author gave
 * each message). It is not a model: the figures it yields measure the thresholds and the plumbing.
 * A call for a text nobody scripted, or a request that is not what the daemon should send, answers
 * HTTP 500 and is counted, so the bench can say that every judgment came from the table.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

async function bodyOf(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) body += String(chunk);
  return body;
}

interface ChatRequest {
  model?: unknown;
  response_format?: { type?: unknown };
  messages?: { role?: unknown; content?: unknown }[];
}

export class ScriptedJudge {
  calls = 0;
  readonly unscripted: string[] = [];
  endpoint = "";
  private readonly server = createServer((req, res) => {
    this.handle(req, res).catch(() => res.destroy());
  });

  /** `scores`: the judged text → the probability that it violates the norm asked. */
  private constructor(private readonly scores: ReadonlyMap<string, number>) {}

  static async start(scores: ReadonlyMap<string, number>): Promise<ScriptedJudge> {
    const judge = new ScriptedJudge(scores);
    await new Promise<void>((resolve) => judge.server.listen(0, "127.0.0.1", resolve));
    const address = judge.server.address();
    judge.endpoint = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/v1`;
    return judge;
  }

  private refuse(res: ServerResponse, why: string): void {
    this.unscripted.push(why);
    res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: why }));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST" || req.url !== "/v1/chat/completions")
      return this.refuse(res, `${req.method} ${req.url}`);
    this.calls++;
    const body = JSON.parse(await bodyOf(req)) as ChatRequest;
    const system = body.messages?.find((m) => m.role === "system")?.content;
    const user = body.messages?.find((m) => m.role === "user")?.content;
    if (body.model !== "guard" || body.response_format?.type !== "json_object" || typeof system !== "string")
      return this.refuse(res, "a request without the model, the JSON answer format or a system message");
    // The daemon sends the judged message as a JSON document, never as instructions.
    const text = typeof user === "string" ? (JSON.parse(user) as { text?: unknown }).text : undefined;
    const p = typeof text === "string" ? this.scores.get(text) : undefined;
    if (p === undefined) return this.refuse(res, `unscripted text: ${String(text).slice(0, 60)}`);
    // A judge names its likelier choice and that choice's probability.
    const answer = p >= 0.5 ? { choice: "yes", probability: p } : { choice: "no", probability: 1 - p };
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify(answer) } }],
      }),
    );
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

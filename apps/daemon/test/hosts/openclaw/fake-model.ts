/**
 * A scripted OpenAI-compatible model on loopback for a real OpenClaw gateway: it answers
 * `POST /v1/chat/completions` as a stream of server-sent events, either with one `message`
 * tool call or with final text. Each rule names a marker; a request is answered by the rule
 * whose marker appears in the latest user message that has one. A turn that already called a
 * tool ends with final text, so the model can never loop (research/openclaw.md §9).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export type ModelReply =
  | { readonly tool: Readonly<Record<string, unknown>> }
  | { readonly text: string }
  /** The provider refuses the request with this HTTP status. */
  | { readonly status: number };

export interface ModelRequest {
  readonly messages: readonly { readonly role: string; readonly text: string; readonly toolCalls: boolean }[];
  /** The user message the rule was chosen by. */
  readonly prompt: string;
}

type Rule = (request: ModelRequest) => ModelReply | Promise<ModelReply>;

/** What the model says once a turn has called its tool. */
export const AFTER_TOOL_TEXT = "(the message tool has answered; nothing more to say)";

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        typeof part === "object" && part !== null && typeof (part as { text?: unknown }).text === "string"
          ? (part as { text: string }).text
          : "",
      )
      .join("");
  }
  return "";
}

export class FakeModel {
  /** Every request, in arrival order. */
  readonly requests: ModelRequest[] = [];
  private readonly rules = new Map<string, Rule>();
  private server: http.Server | undefined;
  private port = 0;

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Answers turns whose prompt contains `marker` with `reply`. */
  on(marker: string, reply: ModelReply | Rule): void {
    this.rules.set(marker, typeof reply === "function" ? reply : () => reply);
  }

  /** The requests whose prompt contained `marker`. */
  requestsFor(marker: string): ModelRequest[] {
    return this.requests.filter((request) => request.prompt.includes(marker));
  }

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async decide(body: { messages?: unknown[] }): Promise<ModelReply> {
    const messages = (body.messages ?? []).map((raw) => {
      const message = raw as { role?: string; content?: unknown; tool_calls?: unknown[] };
      return {
        role: message.role ?? "",
        text: textOf(message.content),
        toolCalls: Array.isArray(message.tool_calls) && message.tool_calls.length > 0,
      };
    });
    let chosen: { index: number; marker: string } | undefined;
    for (let index = messages.length - 1; index >= 0 && chosen === undefined; index--) {
      const message = messages[index]!;
      if (message.role !== "user") continue;
      const marker = [...this.rules.keys()].find((key) => message.text.includes(key));
      if (marker !== undefined) chosen = { index, marker };
    }
    const prompt = chosen === undefined ? "" : messages[chosen.index]!.text;
    const request = { messages, prompt };
    this.requests.push(request);
    if (chosen === undefined) return { text: "(no rule for this turn)" };
    const lastAssistant = messages.slice(chosen.index + 1).findLast((message) => message.role === "assistant");
    if (lastAssistant?.toolCalls === true) return { text: AFTER_TOOL_TEXT };
    return this.rules.get(chosen.marker)!(request);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let raw = "";
    for await (const chunk of req) raw += String(chunk);
    if (req.method === "GET" && req.url?.endsWith("/models")) {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ data: [{ id: "fake-1", object: "model" }] }));
      return;
    }
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(raw) as { messages?: unknown[]; stream?: boolean };
    const reply = await this.decide(body);
    if ("status" in reply) {
      res.writeHead(reply.status, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ error: { message: "the fake model refuses this request", type: "invalid_request_error" } }),
      );
      return;
    }
    const created = Math.floor(Date.now() / 1000);
    const id = `chatcmpl-${this.requests.length}`;
    const delta =
      "tool" in reply
        ? {
            role: "assistant",
            tool_calls: [
              {
                index: 0,
                id: `call_${this.requests.length}`,
                type: "function",
                function: { name: "message", arguments: JSON.stringify(reply.tool) },
              },
            ],
          }
        : { role: "assistant", content: reply.text };
    const finish = "tool" in reply ? "tool_calls" : "stop";
    const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
    if (body.stream !== true) {
      const message = "tool" in reply ? { role: "assistant", content: null, tool_calls: delta.tool_calls } : delta;
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created,
          model: "fake-1",
          choices: [{ index: 0, message, finish_reason: finish }],
          usage,
        }),
      );
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "close" });
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      res.write(
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: "fake-1", choices, ...extra })}\n\n`,
      );
    chunk([{ index: 0, delta, finish_reason: null }]);
    chunk([{ index: 0, delta: {}, finish_reason: finish }], { usage });
    res.end("data: [DONE]\n\n");
  }
}

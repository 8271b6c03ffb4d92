/**
 * An agent's host as real hosts are: the official MCP client (SDK v2, protocol 2026-07-28) on the
 * daemon's runtime token, kept across the daemon's crashes. Every call ends in exactly one of:
 * a result, a typed refusal, "unreachable" (the connection was refused, so nothing reached the
 * daemon) or "broken" (the call may have reached it: the host cannot know what happened).
 */
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import * as z from "zod";
import type { Message } from "./ledger.js";
import type { DaemonServer } from "./processes.js";

/** JSON-RPC code of a typed refusal (README "Sending"). */
const REFUSED = -32030;

export type Call =
  | { readonly ok: true; readonly result: Record<string, unknown> }
  | { readonly ok: false; readonly code: number; readonly reason: string | undefined; readonly data: unknown }
  | { readonly ok: false; readonly transport: "unreachable" | "broken"; readonly error: string };

function causeCode(error: unknown): string | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

function describe(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error; e instanceof Error; e = e.cause) parts.push(e.message);
  return parts.join(": ") || String(error);
}

export class McpHost {
  private client: Promise<Client> | undefined;

  constructor(private readonly daemon: DaemonServer) {}

  get name(): string {
    return this.daemon.name;
  }

  private connected(): Promise<Client> {
    this.client ??= (async () => {
      const client = new Client(
        { name: "social-harness-chaos", version: "1.0.0" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } } },
      );
      const transport = new StreamableHTTPClientTransport(new URL(this.daemon.mcpUrl), {
        requestInit: { headers: { Authorization: `Bearer ${this.daemon.runtimeToken}` } },
      });
      await client.connect(transport);
      return client;
    })();
    // A failed connect is forgotten, so the next call tries again.
    this.client.catch(() => (this.client = undefined));
    return this.client;
  }

  /** Calls a tool. */
  call(name: string, args: Record<string, unknown>): Promise<Call> {
    return this.attempt(async (client) => {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError === true) return { ok: false, code: 0, reason: "is-error", data: result.content };
      return { ok: true, result: (result.structuredContent ?? {}) as Record<string, unknown> };
    });
  }

  /** Sends any other request (`events/subscribe`). */
  request(method: string, params: Record<string, unknown>): Promise<Call> {
    return this.attempt(async (client) => ({
      ok: true,
      result: await client.request({ method, params }, z.looseObject({})),
    }));
  }

  private async attempt(run: (client: Client) => Promise<Call>): Promise<Call> {
    try {
      return await run(await this.connected());
    } catch (error) {
      if (error instanceof ProtocolError) {
        const reason = (error.data as { reason?: unknown } | undefined)?.reason;
        return {
          ok: false,
          code: error.code,
          reason: typeof reason === "string" ? reason : undefined,
          data: error.data,
        };
      }
      const transport = causeCode(error) === "ECONNREFUSED" ? "unreachable" : "broken";
      return { ok: false, transport, error: describe(error) };
    }
  }

  /** Sends one message and records how the call ended, exactly as the host saw it. */
  async send(message: Message): Promise<Message> {
    const call = await this.call("send_message", { to: message.to, text: message.text });
    if (call.ok) {
      message.outcome = "returned";
      message.result = call.result;
    } else if ("transport" in call) {
      // Refused at connect: the request never left. Anything else may have reached the daemon.
      message.outcome = call.transport === "unreachable" ? "refused" : "outcome-unknown";
      message.detail = call.transport === "unreachable" ? "unreachable" : call.error;
    } else if (call.code === REFUSED && call.reason === "delivery-pending") {
      message.result = call.data as Record<string, unknown>;
      message.outcome = "delivery-pending";
    } else if (call.code === REFUSED && call.reason !== "outcome-unknown" && call.reason !== undefined) {
      message.outcome = "refused";
      message.detail = call.reason;
      message.result = call.data as Record<string, unknown>;
    } else {
      // outcome-unknown itself, and any error that is not a typed refusal (a timeout, an internal error).
      message.outcome = "outcome-unknown";
      message.detail = call.reason ?? `code ${call.code}`;
    }
    return message;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.then((c) => c.close()).catch(() => undefined);
  }
}

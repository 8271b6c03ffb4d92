/**
 * The demo's stand-in hosts: an MCP client per agent (send_message, read_inbox,
 * acknowledge_delivery) and the owner API calls the demo makes at start, as an owner would.
 * Nothing here is a daemon shortcut: every call goes over the same HTTP endpoints a real host
 * and the console use.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import * as z from "zod";

export interface DemoDaemon {
  readonly name: string;
  /** http://127.0.0.1:<port>, without /mcp. */
  readonly base: string;
  readonly dataDir: string;
}

export interface InboxEntry {
  readonly deliveryToken: string;
  readonly item: { readonly kind: string; readonly [key: string]: unknown };
}

const Structured = z.looseObject({});

/** One agent's host: its MCP client on the runtime token. */
export class DemoHost {
  private constructor(
    readonly daemon: DemoDaemon,
    readonly client: Client,
  ) {}

  static async connect(daemon: DemoDaemon): Promise<DemoHost> {
    const token = readFileSync(path.join(daemon.dataDir, "runtime.token"), "utf8").trim();
    const client = new Client({ name: `demo-${daemon.name}`, version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${daemon.base}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    return new DemoHost(daemon, client);
  }

  /** Sends; a refusal comes back as its message, never a throw. */
  async send(to: string, text: string): Promise<{ ok: true } | { ok: false; message: string }> {
    try {
      const result = await this.client.callTool({ name: "send_message", arguments: { to, text } });
      return result.isError === true ? { ok: false, message: JSON.stringify(result.content) } : { ok: true };
    } catch (error) {
      return { ok: false, message: error instanceof Error ? error.message : String(error) };
    }
  }

  async readInbox(): Promise<InboxEntry[]> {
    const result = await this.client.callTool({ name: "read_inbox", arguments: {} });
    const page = (result.structuredContent ?? { items: [] }) as { items: InboxEntry[] };
    return page.items;
  }

  async acknowledge(deliveryToken: string): Promise<void> {
    await this.client.callTool({ name: "acknowledge_delivery", arguments: { deliveryToken } });
  }

  /** events/subscribe with the webhook profile (SPEC §9) for the inbox.item event. */
  async subscribeWebhook(url: string, secret: string): Promise<void> {
    await this.client.request(
      {
        method: "events/subscribe",
        params: {
          name: "org.social-harness/inbox.item",
          arguments: {},
          delivery: { mode: "webhook", url, secret },
          cursor: null,
        },
      },
      Structured,
    );
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** Calls one owner API procedure (tRPC over HTTP, no transformer) with the owner token. */
export async function ownerCall(
  daemon: DemoDaemon,
  procedure: string,
  kind: "query" | "mutation",
  input?: unknown,
): Promise<unknown> {
  const token = readFileSync(path.join(daemon.dataDir, "owner.token"), "utf8").trim();
  const url = new URL(`${daemon.base}/trpc/${procedure}`);
  if (kind === "query" && input !== undefined) url.searchParams.set("input", JSON.stringify(input));
  const response = await fetch(url, {
    method: kind === "query" ? "GET" : "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(kind === "mutation" ? { body: JSON.stringify(input ?? null) } : {}),
  });
  const body = (await response.json()) as { result?: { data?: unknown }; error?: { message?: string } };
  if (!response.ok) throw new Error(`${procedure} failed: ${body.error?.message ?? response.status}`);
  return body.result?.data;
}

/**
 * An in-process stand-in for the daemon's MCP endpoint on a loopback port, built with the official
 * v2 server SDK: bearer auth, the four runtime tools behind an own tools/call dispatcher (so a
 * refusal travels as JSON-RPC -32030 with its data), an inbox with cursors and tombstones, and the
 * MCP Events extension with inbox.pending push streams (fake-event-streams.ts). Tests script send
 * answers and streams and inspect every call; nothing here is shipped.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import * as z from "zod";
import { toNodeHandler } from "@modelcontextprotocol/node";
import {
  createMcpHandler,
  legacyStatelessFallback,
  McpServer,
  ProtocolError,
  type CallToolResult,
  type ServerCapabilities,
} from "@modelcontextprotocol/server";
import { eventIdOf, mintId, SEND_REFUSED_CODE } from "@social-harness/protocol";
import { FakeEventStreams } from "./fake-event-streams.js";

export interface RecordedCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  readonly meta: Record<string, unknown> | undefined;
}

export interface FakeEntry {
  readonly deliveryToken: string;
  readonly item: unknown;
  readonly guidance?: unknown;
}

export type SendAnswer = (
  args: { readonly to: string; readonly text: string },
  meta: Record<string, unknown> | undefined,
) => Promise<Record<string, unknown>>;

export interface FakeDaemonOptions {
  /** `both` serves 2026-07-28 and the legacy era, as the daemon does; `legacy` only the legacy era. */
  readonly era?: "both" | "legacy";
  readonly pageSize?: number;
  /** The tools tools/list advertises; all four by default. */
  readonly tools?: readonly string[];
  /** Whether to advertise MCP Events and serve events/stream, as the daemon does; default true. */
  readonly events?: boolean;
  /** The push streams' heartbeat interval in milliseconds; default 100. */
  readonly heartbeatMs?: number;
}

export interface FakeDaemon {
  readonly url: URL;
  readonly token: string;
  readonly calls: RecordedCall[];
  /** How send_message answers; throw `refuse(data)` to refuse. */
  answerSend: SendAnswer;
  /** Adds an item to the inbox and returns its delivery token. */
  deliver(item: unknown, guidance?: unknown): string;
  /** Delivery tokens still pending, in inbox order. */
  pending(): string[];
  /** Resolves once read_inbox has been called `count` times in all. */
  reads(count: number): Promise<void>;
  /** How many times read_inbox has been called. */
  readCount(): number;
  /** The push streams; undefined when the fake does not serve MCP Events. */
  readonly push: FakeEventStreams | undefined;
  stop(): Promise<void>;
}

/** The JSON-RPC error the daemon answers a refused send or acknowledgment with. */
export function refuse(data: unknown): ProtocolError {
  return new ProtocolError(SEND_REFUSED_CODE, "refused", data);
}

const TOOL_INPUTS = {
  send_message: z.strictObject({ to: z.string(), text: z.string() }),
  read_inbox: z.strictObject({ cursor: z.string().optional() }),
  acknowledge_delivery: z.strictObject({ deliveryToken: z.string().regex(/^dlv_[A-Za-z0-9_-]{43}$/) }),
  read_event: z.strictObject({ eventId: z.string().regex(/^evt_[A-Za-z0-9_-]{43}$/) }),
} as const;
type ToolName = keyof typeof TOOL_INPUTS;

function isToolName(name: string): name is ToolName {
  return Object.hasOwn(TOOL_INPUTS, name);
}

type ToolHandler = (
  args: Record<string, unknown>,
  meta: Record<string, unknown> | undefined,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

interface Stored extends FakeEntry {
  readonly seq: number;
}

/** Starts a fake daemon on 127.0.0.1 and an ephemeral port. */
export async function startFakeDaemon(options: FakeDaemonOptions = {}): Promise<FakeDaemon> {
  const token = "runtime-token-for-tests";
  const pageSize = options.pageSize ?? 50;
  const advertised = options.tools ?? Object.keys(TOOL_INPUTS);
  const calls: RecordedCall[] = [];
  const retained = new Map<string, Stored>();
  const pendingTokens = new Set<string>();
  let seq = 0;
  let readCount = 0;
  const readWaiters: { count: number; resolve: () => void }[] = [];

  const pendingEntries = (): Stored[] =>
    [...retained.values()].filter((entry) => pendingTokens.has(entry.deliveryToken)).sort((a, b) => a.seq - b.seq);
  const push =
    options.events === false ? undefined : new FakeEventStreams(() => pendingTokens.size, options.heartbeatMs ?? 100);

  const tools: Record<ToolName, ToolHandler> = {
    send_message: (args, meta) => daemon.answerSend(args as { to: string; text: string }, meta),
    read_inbox: (args) => {
      readCount += 1;
      for (const waiter of readWaiters.filter((w) => readCount >= w.count)) waiter.resolve();
      // A cursor is "<after>.<upper>": continuations keep the first page's upper insertion bound.
      const [after, upper] = typeof args.cursor === "string" ? args.cursor.split(".").map(Number) : [0, seq];
      const candidates = pendingEntries().filter((e) => e.seq > (after ?? 0) && e.seq <= (upper ?? seq));
      const page = candidates.slice(0, pageSize);
      const last = page.at(-1);
      const items = page.map(({ deliveryToken, item, guidance }) =>
        guidance === undefined ? { deliveryToken, item } : { deliveryToken, item, guidance },
      );
      return candidates.length > page.length && last !== undefined
        ? { items, nextCursor: `${last.seq}.${upper ?? seq}` }
        : { items };
    },
    acknowledge_delivery: (args) => {
      const deliveryToken = String(args.deliveryToken);
      if (!retained.has(deliveryToken)) throw refuse({ reason: "unknown-delivery" });
      pendingTokens.delete(deliveryToken);
      push?.countChanged();
      return {};
    },
    read_event: (args) => {
      const entry = [...retained.values()].find((e) => eventIdOf(e.deliveryToken) === args.eventId);
      if (entry === undefined) throw refuse({ reason: "unknown-event" });
      return entry.guidance === undefined ? { item: entry.item } : { item: entry.item, guidance: entry.guidance };
    },
  };

  const factory = () => {
    const capabilities = { events: {}, extensions: { "io.modelcontextprotocol/events": {} } } as ServerCapabilities;
    const mcp = new McpServer(
      { name: "fake-social-harness-daemon", version: "0.0.0" },
      push === undefined ? {} : { capabilities },
    );
    push?.register(mcp);
    for (const name of advertised.filter(isToolName)) {
      mcp.registerTool(name, { description: name, inputSchema: TOOL_INPUTS[name] }, () => ({ content: [] }));
    }
    // Our own dispatcher: McpServer's would turn a thrown ProtocolError into an isError result.
    mcp.server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult> => {
      const { name, arguments: rawArgs } = request.params;
      if (!isToolName(name) || !advertised.includes(name)) throw new ProtocolError(-32602, `Tool ${name} not found`);
      const parsed = TOOL_INPUTS[name].safeParse(rawArgs ?? {});
      if (!parsed.success) throw new ProtocolError(-32602, `Invalid arguments for ${name}: ${parsed.error.message}`);
      const args: Record<string, unknown> = parsed.data;
      const meta = ctx.mcpReq._meta;
      calls.push({ name, arguments: args, meta });
      const structuredContent = await tools[name](args, meta);
      return mcp.server.projectCallToolResult(
        { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent },
        undefined,
      );
    });
    return mcp;
  };

  const mcpHandler = options.era === "legacy" ? undefined : createMcpHandler(factory, { legacy: "stateless" });
  const node = toNodeHandler(mcpHandler ?? { fetch: legacyStatelessFallback(factory) });
  const server = http.createServer((req, res) => {
    // No keep-alive: once stopped, a new request meets a refused connection, never a stale socket.
    res.shouldKeepAlive = false;
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { "content-type": "application/json", "www-authenticate": 'Bearer error="invalid_token"' });
      res.end(JSON.stringify({ error: "invalid_token", error_description: "unknown runtime token" }));
      return;
    }
    void node(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const daemon: FakeDaemon = {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    token,
    calls,
    answerSend: () => Promise.resolve({}),
    deliver(item, guidance) {
      const deliveryToken = mintId("delivery");
      seq += 1;
      retained.set(
        deliveryToken,
        guidance === undefined ? { deliveryToken, item, seq } : { deliveryToken, item, guidance, seq },
      );
      pendingTokens.add(deliveryToken);
      push?.countChanged();
      return deliveryToken;
    },
    pending: () => pendingEntries().map((entry) => entry.deliveryToken),
    readCount: () => readCount,
    push,
    reads: (count) =>
      readCount >= count ? Promise.resolve() : new Promise((resolve) => readWaiters.push({ count, resolve })),
    async stop() {
      push?.closeAll();
      await mcpHandler?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
  return daemon;
}

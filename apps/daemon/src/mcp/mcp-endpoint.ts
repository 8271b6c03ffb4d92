/**
 * The MCP endpoint at /mcp (SPEC §9, seed 000): the official SDK v2 serves protocol 2026-07-28 and
 * the legacy initialize era on one URL. Bearer tokens name the principal (401 otherwise). Tools
 * are dispatched by our own `tools/call` handler so that argument mistakes are InvalidParams
 * (-32602) and refusals keep their JSON-RPC code and data (research/mcp-sdk-v2.md §4). Servers
 * are built once per principal and era and reused once their exchange has closed. A plain
 * modern-era tools/call skips the SDK (mcp/direct-call.ts) and gets the same answer.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  createMcpHandler,
  ProtocolError,
  Server,
  type AuthInfo,
  type CallToolResult,
  type ServerCapabilities,
} from "@modelcontextprotocol/server";
import { hop } from "@social-harness/protocol";
import type { Logger } from "pino";
import * as z from "zod";
import { principalOf, type Credentials, type Principal } from "../identity/identity.js";
import { ClientGone, readBody, webRequestOf, writeResponse, writeTooLarge } from "./node-exchange.js";
import { directCallOf, writeDirectAnswer } from "./direct-call.js";
import { INVALID_PARAMS, type ToolDefinition } from "./tool.js";
import { callTool, jsonOf, structuredOf } from "./tool-call.js";

export const SERVER_INFO = { name: "social-harness-daemon", version: "0.1.0" } as const;
const SERVER_META = JSON.stringify({ "io.modelcontextprotocol/serverInfo": SERVER_INFO });

/** Something that adds methods to each per-request server (the events extension). */
export type ServerExtension = (server: Server, principal: Principal, era: "modern" | "legacy") => void;

export interface McpEndpointDeps {
  readonly credentials: Credentials;
  readonly tools: readonly ToolDefinition[];
  readonly extensions?: readonly ServerExtension[];
  readonly instructions: string;
  readonly log: Logger;
  /** Resolves once every durable commit so far is on disk; each answer waits for it. */
  readonly durable?: () => Promise<void>;
  /** false: every request goes through the SDK (tests compare the two paths). */
  readonly direct?: boolean;
}

interface PreparedTool {
  readonly tool: ToolDefinition;
  readonly inputJsonSchema: Record<string, unknown>;
  readonly outputJsonSchema: Record<string, unknown>;
}

function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

/** What the endpoint passes to its handlers beside the principal, through the SDK's authInfo. */
interface RequestExtra {
  readonly principal: Principal;
  /** tools/call arguments exactly as JSON.parse read them, before the SDK's validation copies them. */
  readonly rawArguments?: unknown;
}

/** The arguments of a single tools/call body, as parsed from the raw JSON. */
function rawArgumentsOf(body: unknown): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: unknown };
  if (method !== "tools/call" || typeof params !== "object" || params === null) return undefined;
  return (params as { arguments?: unknown }).arguments;
}

/** Idle servers waiting for their next exchange, one pool per principal and era. */
const POOL_LIMIT = 32;

export interface McpEndpoint {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  close(): Promise<void>;
}

export function createMcpEndpoint(deps: McpEndpointDeps): McpEndpoint {
  const prepared = new Map<string, PreparedTool>(
    deps.tools.map((tool) => [
      tool.name,
      {
        tool,
        inputJsonSchema: jsonSchemaOf(tool.input, "input"),
        outputJsonSchema: jsonSchemaOf(tool.output, "output"),
      },
    ]),
  );

  const capabilities = {
    tools: {},
    events: {},
    extensions: { "io.modelcontextprotocol/events": {} },
  } as ServerCapabilities;

  const build = (principal: Principal, era: "modern" | "legacy"): Server => {
    const server = new Server(SERVER_INFO, { capabilities, instructions: deps.instructions });
    const visible = [...prepared.values()].filter((p) => p.tool.principals.includes(principal));

    server.setRequestHandler("tools/list", () => ({
      tools: visible.map((p) => ({
        name: p.tool.name,
        title: p.tool.title,
        description: p.tool.description,
        inputSchema: p.inputJsonSchema as never,
        outputSchema: p.outputJsonSchema as never,
      })),
    }));

    server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult> => {
      const { name } = request.params;
      const entry = prepared.get(name);
      if (entry === undefined || !entry.tool.principals.includes(principal)) {
        throw new ProtocolError(INVALID_PARAMS, `Tool ${name} not found`);
      }
      // The SDK's message validation copies arguments into fresh objects, which drops an own
      // "__proto__" key; the raw parse still has it, so the strict schema refuses it as unknown.
      const extra = ctx.http?.authInfo?.extra as RequestExtra | undefined;
      const raw = extra !== undefined && "rawArguments" in extra ? extra.rawArguments : request.params.arguments;
      const outcome = await callTool(entry.tool, raw, {
        principal,
        meta: ctx.mcpReq._meta,
        signal: ctx.mcpReq.signal,
        log: deps.log,
      });
      if (!outcome.ok) throw new ProtocolError(outcome.code, outcome.message, outcome.data);
      return server.projectCallToolResult(
        { content: [{ type: "text", text: jsonOf(outcome) }], structuredContent: structuredOf(outcome) },
        entry.outputJsonSchema,
      );
    });

    for (const extend of deps.extensions ?? []) extend(server, principal, era);
    return server;
  };

  // The SDK serves one exchange per server instance at a time and closes it afterwards; a closed
  // server is connected again for a later exchange of the same principal and era, so its handlers
  // are registered once rather than on every request.
  const idle = new Map<string, Set<Server>>();
  const acquire = (principal: Principal, era: "modern" | "legacy"): Server => {
    const key = `${principal}:${era}`;
    const pool = idle.get(key) ?? new Set<Server>();
    idle.set(key, pool);
    const reused = pool.values().next();
    if (!reused.done) {
      pool.delete(reused.value);
      return reused.value;
    }
    const server = build(principal, era);
    server.onclose = () => {
      if (pool.size < POOL_LIMIT) pool.add(server);
    };
    return server;
  };

  const handler = createMcpHandler(
    ({ authInfo, era }) => acquire((authInfo?.extra as RequestExtra | undefined)?.principal ?? "runtime", era),
    { legacy: "stateless", onerror: (error) => deps.log.debug({ err: error }, "mcp request rejected") },
  );

  return {
    async handle(req, res) {
      const principal = principalOf(deps.credentials, req.headers.authorization);
      if (principal === undefined) {
        res.writeHead(401, {
          "content-type": "application/json",
          "www-authenticate": 'Bearer error="invalid_token", error_description="a runtime or owner token is required"',
        });
        res.end(JSON.stringify({ error: "invalid_token", error_description: "a runtime or owner token is required" }));
        return;
      }
      const closed = new ClientGone(res);
      const body = await readBody(req);
      hop("mcp.request-parsed");
      if (body.kind === "too-large") return writeTooLarge(req, res);
      const direct = body.kind === "json" && deps.direct !== false ? directCallOf(req.headers, body.value) : undefined;
      const entry = direct === undefined ? undefined : prepared.get(direct.name);
      if (direct !== undefined && entry !== undefined && entry.tool.principals.includes(principal)) {
        const outcome = await callTool(entry.tool, direct.args, {
          principal,
          meta: direct.meta,
          get signal() {
            return closed.signal;
          },
          log: deps.log,
        });
        await deps.durable?.();
        writeDirectAnswer(res, direct.id, outcome, SERVER_META);
        hop("mcp.response-written");
        return;
      }
      const extra: RequestExtra =
        body.kind === "json" && rawArgumentsOf(body.value) !== undefined
          ? { principal, rawArguments: rawArgumentsOf(body.value) }
          : { principal };
      const authInfo: AuthInfo = { token: "", clientId: principal, scopes: [], extra: { ...extra } };
      const request = webRequestOf(req, body.kind === "raw" ? body.text : undefined, closed.signal);
      let response: Response;
      try {
        response = await handler.fetch(request, {
          authInfo,
          ...(body.kind === "json" ? { parsedBody: body.value } : {}),
        });
      } catch (error) {
        deps.log.warn({ err: error }, "mcp transport error");
        response = Response.json(
          { jsonrpc: "2.0", error: { code: -32603, message: "Internal server error" }, id: null },
          { status: 500 },
        );
      }
      // An answer never reports what a power loss could undo (a token read, an acknowledgment).
      await deps.durable?.();
      await writeResponse(res, response, closed.signal);
      hop("mcp.response-written");
    },
    close: () => handler.close(),
  };
}

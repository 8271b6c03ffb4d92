/**
 * The MCP session with the daemon: one v2 SDK client over Streamable HTTP, authenticated with the
 * runtime bearer token, negotiating protocol 2026-07-28 or the legacy era, opened in a Scope and
 * closed with it. Tool calls end in their structured result or one ToolCallError; an events/stream
 * runs until it ends and hands over only the notifications that carry its own subscription id.
 */
import { Effect, Redacted, Ref, Schema, type Scope } from "effect";
import {
  Client,
  isJSONRPCRequest,
  StreamableHTTPClientTransport,
  SUBSCRIPTION_ID_META_KEY,
  type RequestId,
} from "@modelcontextprotocol/client";
import { ConnectError } from "./errors.js";
import { connectErrorOf, ToolCallError, toolCallErrorOf } from "./mcp-errors.js";

// The runtime tools the client calls (seed 000 "MCP Events and inbox", seed 001 "MCP adapter projection").
const REQUIRED_TOOLS = ["send_message", "read_inbox", "acknowledge_delivery"] as const;

// SDK v2 clients strip the top-level `events` capability; the extension key survives (research/mcp-sdk-v2.md §5).
const EVENTS_EXTENSION = "io.modelcontextprotocol/events";

// `Infinity` and 0 fire at once; the largest timer Node accepts stands for none (research/mcp-sdk-v2.md §8).
const NO_TIMEOUT_MS = 2 ** 31 - 1;

const EVENT_NOTIFICATIONS = ["active", "event", "heartbeat", "error", "terminated"] as const;

/** The notifications/events/* methods, by their last segment. */
export type EventNotificationKind = (typeof EVENT_NOTIFICATIONS)[number];

/** One notification of an events/stream; `params` still holds its `_meta`. */
export interface EventNotification {
  readonly kind: EventNotificationKind;
  readonly params: Readonly<Record<string, unknown>>;
}

/** An open MCP session with one daemon. */
export interface McpConnection {
  /** Whether the daemon advertises the MCP Events extension, and so serves events/stream. */
  readonly servesEvents: boolean;
  /** False once the scope that opened the session has closed it. */
  readonly isOpen: Effect.Effect<boolean>;
  /** Calls a tool; succeeds with its structuredContent, which the caller validates. */
  readonly callTool: (
    name: string,
    args: Readonly<Record<string, unknown>>,
    meta?: Readonly<Record<string, unknown>>,
  ) => Effect.Effect<unknown, ToolCallError>;
  /**
   * Opens events/stream for the event `name` with no request timeout and hands each notification
   * of that stream, and of no other, to `onNotification`. It succeeds when the daemon closes the
   * stream and fails when the request fails; interrupting it closes the stream.
   */
  readonly streamEvents: (
    name: string,
    onNotification: (notification: EventNotification) => void,
  ) => Effect.Effect<void, ToolCallError>;
}

const LooseObject = Schema.standardSchemaV1(Schema.Record({ key: Schema.String, value: Schema.Unknown }));

// The SDK assigns a request's JSON-RPC id internally and passes the request to the transport
// synchronously within `request()`; noting the id there is how a stream learns its subscription id.
class ObservedTransport extends StreamableHTTPClientTransport {
  lastEventStreamId: RequestId | undefined;

  override send(...args: Parameters<StreamableHTTPClientTransport["send"]>): Promise<void> {
    const [message] = args;
    if (!Array.isArray(message) && isJSONRPCRequest(message) && message.method === "events/stream") {
      this.lastEventStreamId = message.id;
    }
    return super.send(...args);
  }
}

function subscriptionIdOf(params: Readonly<Record<string, unknown>>): RequestId | undefined {
  const meta = params._meta;
  if (typeof meta !== "object" || meta === null) return undefined;
  const id = (meta as Record<string, unknown>)[SUBSCRIPTION_ID_META_KEY];
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

function resultText(content: readonly { readonly type: string; readonly text?: unknown }[]): string {
  return content
    .map((block) => (typeof block.text === "string" ? block.text : `[${block.type}]`))
    .join(" ")
    .trim();
}

/**
 * Opens the MCP session at `url` with `token`, checks that the daemon serves the runtime tools,
 * and closes the session when the scope closes. `timeoutMs` bounds connecting and each call.
 */
export function openMcpConnection(
  url: URL,
  token: Redacted.Redacted<string>,
  timeoutMs: number,
): Effect.Effect<McpConnection, ConnectError, Scope.Scope> {
  return Effect.gen(function* () {
    const open = yield* Ref.make(true);
    // Listeners by subscription id: a closed stream's late notifications find nobody.
    const streams = new Map<RequestId, (notification: EventNotification) => void>();
    const { client, transport } = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async (signal) => {
          const client = new Client(
            { name: "@social-harness/client", version: "0.1.0" },
            { versionNegotiation: { mode: "auto" } },
          );
          for (const kind of EVENT_NOTIFICATIONS) {
            client.setNotificationHandler(`notifications/events/${kind}`, { params: LooseObject }, (params) => {
              const id = subscriptionIdOf(params);
              if (id !== undefined) streams.get(id)?.({ kind, params });
            });
          }
          const transport = new ObservedTransport(url, {
            requestInit: { headers: { Authorization: `Bearer ${Redacted.value(token)}` } },
          });
          await client.connect(transport, { signal, timeout: timeoutMs }).catch(async (error: unknown) => {
            await client.close().catch(() => undefined);
            throw error;
          });
          return { client, transport };
        },
        catch: (error) => connectErrorOf(url, error),
      }),
      ({ client }) =>
        Effect.zipRight(Ref.set(open, false), Effect.ignoreLogged(Effect.tryPromise(() => client.close()))),
    );
    const listed = yield* Effect.tryPromise({
      try: (signal) => client.listTools(undefined, { signal, timeout: timeoutMs }),
      catch: (error) => connectErrorOf(url, error),
    });
    const names = new Set(listed.tools.map((tool) => tool.name));
    const missing = REQUIRED_TOOLS.filter((name) => !names.has(name));
    if (missing.length > 0) {
      return yield* new ConnectError({
        reason: "incompatible",
        detail: `the MCP endpoint at ${url.href} does not serve ${missing.join(", ")}`,
      });
    }
    const ensureOpen = (name: string) =>
      Effect.flatMap(Ref.get(open), (isOpen) =>
        isOpen
          ? Effect.void
          : Effect.fail(
              new ToolCallError({ kind: "unsent", detail: `${name} was not sent: the endpoint's scope is closed` }),
            ),
      );

    const callTool: McpConnection["callTool"] = (name, args, meta) =>
      Effect.gen(function* () {
        yield* ensureOpen(name);
        const result = yield* Effect.tryPromise({
          try: (signal) =>
            client.callTool(
              { name, arguments: { ...args }, ...(meta === undefined ? {} : { _meta: { ...meta } }) },
              { signal, timeout: timeoutMs },
            ),
          catch: (error) => toolCallErrorOf(name, error),
        });
        if (result.isError === true) {
          return yield* new ToolCallError({
            kind: "failed",
            detail: `${name} answered an error result: ${resultText(result.content)}`,
          });
        }
        return result.structuredContent;
      });

    const streamEvents: McpConnection["streamEvents"] = (name, onNotification) =>
      Effect.zipRight(
        ensureOpen("events/stream"),
        Effect.tryPromise({
          try: (signal) => {
            transport.lastEventStreamId = undefined;
            const request = client.request({ method: "events/stream", params: { name } }, LooseObject, {
              signal,
              timeout: NO_TIMEOUT_MS,
            });
            const id = transport.lastEventStreamId;
            if (id !== undefined) streams.set(id, onNotification);
            return request
              .then(() => undefined)
              .finally(() => {
                if (id !== undefined) streams.delete(id);
              });
          },
          catch: (error) => toolCallErrorOf("events/stream", error),
        }),
      );

    const extensions = client.getServerCapabilities()?.extensions;
    return {
      servesEvents: extensions?.[EVENTS_EXTENSION] !== undefined,
      isOpen: Ref.get(open),
      callTool,
      streamEvents,
    };
  });
}

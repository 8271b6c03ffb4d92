/**
 * acquireHarnessEndpoint (seed 003 "Service shape"): the HarnessEndpoint a host holds for the life
 * of a Scope, over its daemon's MCP endpoint, receiving through the daemon's events/stream push (or
 * by polling a daemon without MCP Events), and forEachDelivery, the handoff seed 000 "Delivery
 * handoff" prescribes: acknowledge after the handler succeeds, leave the item pending when it fails.
 */
import { Config, Duration, Effect, Option, Redacted, Stream, type Scope } from "effect";
import { ConnectError, type DeliveryAcknowledgeError, type ListenError } from "./errors.js";
import { acknowledgeDelivery, readInboxPage, type PendingEntry } from "./inbox.js";
import { pushInbox } from "./inbox-push.js";
import { pendingOnce, pollInbox } from "./inbox-stream.js";
import { openMcpConnection } from "./mcp-connection.js";
import { sendMessage } from "./send.js";
import type { HarnessEndpoint, InboundDelivery } from "./types.js";

/** The environment variable holding the daemon's runtime token (its data directory's `runtime.token`). */
export const TOKEN_ENV = "SOCIAL_HARNESS_TOKEN";

const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
const DEFAULT_POLL_INTERVAL_MS = 500;
// Twice the longest heartbeat interval the daemon may use (30 s, seed 000; research/mcp-events.md §6).
const DEFAULT_HEARTBEAT_TIMEOUT_MS = 60_000;

/** Options of acquireHarnessEndpoint beyond the endpoint URL. */
export interface HarnessEndpointOptions {
  /**
   * The daemon's runtime bearer token. When absent, it is read from the environment variable
   * SOCIAL_HARNESS_TOKEN through Effect's ConfigProvider; with neither, acquiring fails as
   * ConnectError `unauthorized`.
   */
  readonly token?: string;
  /**
   * Bounds connecting and each tool call, in milliseconds; default 60,000. A send that reaches it
   * fails as outcome-unknown, since the daemon may already have acted.
   */
  readonly requestTimeoutMs?: number;
  /**
   * How long `messages` waits for any notification of its events/stream (an event or a heartbeat)
   * before it counts the stream as lost, closes it and attaches a new one, in milliseconds; default
   * 60,000, twice the daemon's longest heartbeat interval.
   */
  readonly heartbeatTimeoutMs?: number;
  /**
   * Only for a daemon that does not advertise MCP Events, which `messages` reads by polling: how
   * long it waits before reading an inbox that had nothing new, in milliseconds; default 500.
   */
  readonly pollIntervalMs?: number;
}

const runtimeToken = (given: string | undefined): Effect.Effect<Redacted.Redacted<string>, ConnectError> =>
  Effect.gen(function* () {
    if (given !== undefined && given !== "") return Redacted.make(given);
    const configured = yield* Config.option(Config.redacted(TOKEN_ENV)).pipe(
      Effect.mapError(
        (cause) => new ConnectError({ reason: "unauthorized", detail: `${TOKEN_ENV} cannot be read`, cause }),
      ),
    );
    if (Option.isNone(configured) || Redacted.value(configured.value) === "") {
      return yield* new ConnectError({
        reason: "unauthorized",
        detail: `no runtime token: pass options.token or set ${TOKEN_ENV}`,
      });
    }
    return configured.value;
  });

/**
 * Connects to the daemon's MCP endpoint at `endpoint` (e.g. `http://127.0.0.1:40123/mcp`) for the
 * life of the scope; closing the scope closes the connection. `messages` yields each pending item
 * once per run of the stream, in inbox order; an item the host never acknowledges stays pending,
 * so a new run yields it again. Each run holds the daemon's events/stream (the inbox's one push
 * consumer), reads the inbox when the stream opens and on each event, and reattaches after
 * heartbeat silence or a lost stream; it ends only when another consumer owns the inbox, the token
 * is refused, the daemon answers what this client cannot read, or the scope closes. A daemon that
 * does not advertise MCP Events is polled instead.
 */
export function acquireHarnessEndpoint(
  endpoint: URL,
  options?: HarnessEndpointOptions,
): Effect.Effect<HarnessEndpoint, ConnectError, Scope.Scope> {
  return Effect.gen(function* () {
    const token = yield* runtimeToken(options?.token);
    const connection = yield* openMcpConnection(
      endpoint,
      token,
      options?.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    );
    const toDelivery = (entry: PendingEntry): InboundDelivery => {
      const acknowledge = acknowledgeDelivery(connection, entry.deliveryToken);
      return entry.guidance === undefined
        ? { item: entry.item, acknowledge }
        : { item: entry.item, guidance: entry.guidance, acknowledge };
    };
    const readPage = (cursor: string | undefined) => readInboxPage(connection, cursor);
    const reads = connection.servesEvents
      ? pushInbox(connection, readPage, {
          heartbeatTimeout: Duration.millis(options?.heartbeatTimeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS),
        })
      : pollInbox(readPage, Duration.millis(options?.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS));
    const messages = pendingOnce(reads).pipe(Stream.map(toDelivery));
    return {
      send: (input, sendOptions) => sendMessage(connection, input, sendOptions),
      messages,
    };
  });
}

/**
 * Hands each delivery of `endpoint.messages` to `handler`, one at a time in inbox order, and
 * acknowledges it only after the handler's Effect succeeds. A failing handler's error propagates
 * and its item stays pending, to be offered again by the next run (seed 000 "Delivery handoff").
 * It runs until the stream, the handler or an acknowledgment fails, or it is interrupted.
 */
export function forEachDelivery<E, R>(
  endpoint: HarnessEndpoint,
  handler: (delivery: InboundDelivery) => Effect.Effect<void, E, R>,
): Effect.Effect<void, ListenError | DeliveryAcknowledgeError | E, R> {
  return Stream.runForEach(endpoint.messages, (delivery) => Effect.zipRight(handler(delivery), delivery.acknowledge));
}

/**
 * The push source of HarnessEndpoint.messages (seed 000 "MCP Events and inbox"): it keeps an
 * events/stream of `org.social-harness/inbox.pending` attached and reads the whole inbox once the
 * stream is active and again on each event, a burst coalescing into one queued re-read. Heartbeat
 * silence, termination and failed requests lose the stream: it reattaches with capped backoff and
 * reads again. Only an inbox another consumer owns, a refused token, an unreadable answer or the
 * endpoint's closed scope end it.
 */
import { EVENT_ERRORS, INBOX_PENDING_EVENT } from "@social-harness/protocol";
import { Duration, Effect, Option, Queue, Schedule, Stream } from "effect";
import { ListenError } from "./errors.js";
import type { InboxPage } from "./inbox.js";
import type { ReadPage } from "./inbox-stream.js";
import type { EventNotification, McpConnection } from "./mcp-connection.js";
import type { ToolCallError } from "./mcp-errors.js";

// MCP Events' Forbidden: before a stream, a webhook subscription owns the inbox; as a
// termination, a newer stream took it over.
const FORBIDDEN = EVENT_ERRORS.forbidden;

const BACKOFF_FIRST = Duration.millis(250);
const BACKOFF_MAX = Duration.seconds(5);

/** How the push source watches its stream. */
export interface PushOptions {
  /** A stream that sends no notification for this long is lost; the spec says 2 × the heartbeat interval. */
  readonly heartbeatTimeout: Duration.DurationInput;
}

// How one attachment ended: `fatal` ends `messages`; `lost` reattaches.
type Ending = { readonly fatal: ListenError } | { readonly lost: string };

// What one attachment sees, in arrival order: its notifications, then how its request ended.
type Signal = EventNotification | { readonly kind: "closed"; readonly ending: Ending };

interface Lost {
  readonly activated: boolean;
  readonly why: string;
}

function consumerTaken(detail: string, cause?: unknown): Ending {
  return { fatal: new ListenError({ reason: "consumer-taken", detail, cause }) };
}

function endingOfFailure(error: ToolCallError): Ending {
  switch (error.kind) {
    case "unauthorized":
      return { fatal: new ListenError({ reason: "unauthorized", detail: error.detail, cause: error }) };
    case "refused":
      return error.code === FORBIDDEN
        ? consumerTaken(`the daemon refused the push stream: ${JSON.stringify(error.data ?? error.detail)}`, error)
        : {
            fatal: new ListenError({
              reason: "invalid-response",
              detail: `the daemon refused events/stream: ${error.detail}`,
              cause: error,
            }),
          };
    case "failed":
      return { fatal: new ListenError({ reason: "invalid-response", detail: error.detail, cause: error }) };
    case "unsent":
    case "ambiguous":
      return { lost: error.detail };
  }
}

function endingOfTermination(params: Readonly<Record<string, unknown>>): Ending {
  const error = (params.error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  const message = typeof error.message === "string" ? error.message : "terminated";
  const described = `${message} ${JSON.stringify(error.data ?? {})}`;
  return error.code === FORBIDDEN
    ? consumerTaken(`the daemon ended the push stream: ${described}`)
    : { lost: `the daemon terminated the stream: ${described}` };
}

// One stream from open to loss. Every notification, heartbeats included, proves it alive.
function attachOnce(
  connection: Pick<McpConnection, "streamEvents">,
  wake: Queue.Enqueue<void>,
  heartbeatTimeout: Duration.Duration,
): Effect.Effect<Lost, ListenError> {
  return Effect.scoped(
    Effect.gen(function* () {
      const signals = yield* Queue.unbounded<Signal>();
      yield* connection
        .streamEvents(INBOX_PENDING_EVENT, (notification) => Queue.unsafeOffer(signals, notification))
        .pipe(
          Effect.match({
            onSuccess: (): Ending => ({ lost: "the daemon closed the stream" }),
            onFailure: endingOfFailure,
          }),
          Effect.flatMap((ending) => Queue.offer(signals, { kind: "closed", ending })),
          Effect.forkScoped,
        );
      let activated = false;
      for (;;) {
        const next = yield* Effect.timeoutOption(Queue.take(signals), heartbeatTimeout);
        if (Option.isNone(next)) {
          return { activated, why: `no notification for ${Duration.format(heartbeatTimeout)}` };
        }
        const signal = next.value;
        switch (signal.kind) {
          case "active":
            // Reattachment triggers another inbox read (seed 000).
            activated = true;
            yield* Queue.offer(wake, undefined);
            break;
          case "event":
            yield* Queue.offer(wake, undefined);
            break;
          case "heartbeat":
          case "error":
            // A recoverable error leaves the stream active (seed 000).
            break;
          case "terminated":
          case "closed": {
            const ending = "ending" in signal ? signal.ending : endingOfTermination(signal.params);
            if ("fatal" in ending) return yield* ending.fatal;
            return { activated, why: ending.lost };
          }
        }
      }
    }),
  );
}

// Closing the scope of a lost attachment aborts its request, so the daemon releases it.
function attachForever(
  connection: Pick<McpConnection, "streamEvents" | "isOpen">,
  wake: Queue.Enqueue<void>,
  heartbeatTimeout: Duration.Duration,
): Effect.Effect<never, ListenError> {
  return Effect.gen(function* () {
    let delay = BACKOFF_FIRST;
    for (;;) {
      const lost = yield* attachOnce(connection, wake, heartbeatTimeout);
      if (!(yield* connection.isOpen)) {
        return yield* new ListenError({ reason: "unreachable", detail: "the endpoint's scope is closed" });
      }
      if (lost.activated) delay = BACKOFF_FIRST;
      yield* Effect.logDebug(`events/stream lost (${lost.why}); reattaching in ${Duration.format(delay)}`);
      yield* Effect.sleep(delay);
      delay = Duration.min(Duration.times(delay, 2), BACKOFF_MAX);
    }
  });
}

/** One complete read of the inbox, page by page, following `nextCursor`. */
export function readInbox<E>(
  readPage: (cursor: string | undefined) => Effect.Effect<InboxPage, E>,
): Stream.Stream<ReadPage, E> {
  return Stream.paginateEffect(undefined as string | undefined, (cursor) =>
    Effect.map(
      readPage(cursor),
      (page) =>
        [{ entries: page.entries, last: page.nextCursor === undefined }, Option.fromNullable(page.nextCursor)] as const,
    ),
  );
}

// A daemon that is restarting fails reads too; they are retried, while the stream reattaches.
const readAgainWhileUnreachable = Schedule.exponential(BACKOFF_FIRST).pipe(
  Schedule.union(Schedule.spaced(BACKOFF_MAX)),
  Schedule.intersect(Schedule.recurWhile((error: ListenError) => error.reason === "unreachable")),
);

/**
 * Complete reads of the inbox driven by the daemon's push stream: one when each attachment is
 * active and one after each event, with at most one read queued behind the one in progress. It
 * fails only with a ListenError that retrying cannot mend (consumer-taken, unauthorized,
 * invalid-response, or unreachable once the endpoint's scope is closed); it never ends on its own.
 */
export function pushInbox(
  connection: Pick<McpConnection, "streamEvents" | "isOpen">,
  readPage: (cursor: string | undefined) => Effect.Effect<InboxPage, ListenError>,
  options: PushOptions,
): Stream.Stream<ReadPage, ListenError> {
  const heartbeatTimeout = Duration.decode(options.heartbeatTimeout);
  return Stream.unwrapScoped(
    Effect.map(Effect.acquireRelease(Queue.sliding<void>(1), Queue.shutdown), (wake) => {
      const reads = Stream.fromQueue(wake).pipe(
        Stream.flatMap(() => readInbox(readPage).pipe(Stream.retry(readAgainWhileUnreachable))),
      );
      return Stream.merge(reads, Stream.drain(Stream.fromEffect(attachForever(connection, wake, heartbeatTimeout))));
    }),
  );
}

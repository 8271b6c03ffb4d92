/**
 * HarnessEndpoint.messages: every pending inbox item once per run of the stream, in inbox order.
 * A source produces complete reads of the inbox page by page: `pushInbox` (inbox-push.ts) when the
 * daemon serves MCP Events, `pollInbox` here otherwise; `pendingOnce` then drops what this run
 * already yielded. Nothing here acknowledges: unacknowledged items stay pending.
 */
import { Chunk, Effect, Option, Stream, type Duration } from "effect";
import type { InboxPage, PendingEntry } from "./inbox.js";

/** One page of a complete read of the inbox; `last` ends that read. */
export interface ReadPage {
  readonly entries: readonly PendingEntry[];
  readonly last: boolean;
}

// `previous` holds the tokens of the last complete read, `current` those of the read in progress.
interface PollState {
  readonly cursor: string | undefined;
  readonly previous: ReadonlySet<string>;
  readonly current: ReadonlySet<string>;
  readonly wait: boolean;
}

function union(set: ReadonlySet<string>, entries: readonly PendingEntry[]): Set<string> {
  const result = new Set(set);
  for (const entry of entries) result.add(entry.deliveryToken);
  return result;
}

/**
 * Reads the inbox over and over, following `nextCursor` within a read. A read that found a token
 * the previous read lacked is followed at once, since more may have arrived while it ran; any
 * other read waits `interval` first, so items the host leaves pending do not spin the loop.
 */
export function pollInbox<E>(
  readPage: (cursor: string | undefined) => Effect.Effect<InboxPage, E>,
  interval: Duration.DurationInput,
): Stream.Stream<ReadPage, E> {
  const start: PollState = { cursor: undefined, previous: new Set(), current: new Set(), wait: false };
  return Stream.unfoldChunkEffect(start, (state) =>
    Effect.gen(function* () {
      if (state.wait) yield* Effect.sleep(interval);
      const page = yield* readPage(state.cursor);
      const current = union(state.current, page.entries);
      if (page.nextCursor !== undefined) {
        const next: PollState = { cursor: page.nextCursor, previous: state.previous, current, wait: false };
        return Option.some([Chunk.of<ReadPage>({ entries: page.entries, last: false }), next] as const);
      }
      const grew = [...current].some((token) => !state.previous.has(token));
      const next: PollState = { cursor: undefined, previous: current, current: new Set(), wait: !grew };
      return Option.some([Chunk.of<ReadPage>({ entries: page.entries, last: true }), next] as const);
    }),
  );
}

// `seen` holds the tokens this run has yielded and may meet again.
interface SeenState {
  readonly seen: ReadonlySet<string>;
  readonly current: ReadonlySet<string>;
}

/**
 * Yields each entry the first time this run meets its token. A token missing from a complete read
 * was acknowledged or retired, and a token is never rebound, so it is forgotten then: the memory
 * stays bounded by the inbox.
 */
export function pendingOnce<E>(pages: Stream.Stream<ReadPage, E>): Stream.Stream<PendingEntry, E> {
  const start: SeenState = { seen: new Set(), current: new Set() };
  return pages.pipe(
    Stream.mapAccum(start, (state, page): readonly [SeenState, readonly PendingEntry[]] => {
      const fresh = page.entries.filter((entry) => !state.seen.has(entry.deliveryToken));
      const current = union(state.current, page.entries);
      const next: SeenState = page.last
        ? { seen: current, current: new Set() }
        : { seen: union(state.seen, fresh), current };
      return [next, fresh];
    }),
    Stream.flattenIterables,
  );
}

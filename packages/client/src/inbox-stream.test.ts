import { Chunk, Effect, Fiber, Stream, TestClock, TestContext } from "effect";
import { describe, expect, it } from "vitest";
import type { InboxPage, PendingEntry } from "./inbox.js";
import { pendingOnce, pollInbox, type ReadPage } from "./inbox-stream.js";
import { directItem } from "./testing/run-endpoint.js";

const entry = (token: string): PendingEntry => ({ deliveryToken: token, item: directItem(token) });
const tokens = (entries: Iterable<PendingEntry>) => [...entries].map((e) => e.deliveryToken);
const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.provide(effect, TestContext.TestContext));

describe("pollInbox", () => {
  it("follows nextCursor within a read and marks the page that ends it", async () => {
    const pages: Record<string, InboxPage> = {
      first: { entries: [entry("a"), entry("b")], nextCursor: "2" },
      "2": { entries: [entry("c")] },
    };
    const cursors: (string | undefined)[] = [];
    const readPage = (cursor: string | undefined) =>
      Effect.sync(() => {
        cursors.push(cursor);
        return pages[cursor ?? "first"]!;
      });
    const read = await run(Stream.runCollect(Stream.take(pollInbox(readPage, "500 millis"), 2)));
    expect(Chunk.toArray(read).map((page) => ({ tokens: tokens(page.entries), last: page.last }))).toEqual([
      { tokens: ["a", "b"], last: false },
      { tokens: ["c"], last: true },
    ]);
    expect(cursors).toEqual([undefined, "2"]);
  });

  it("reads again at once after a read that found new tokens and waits the interval otherwise", async () => {
    const inbox = [entry("a")];
    let reads = 0;
    const readPage = () =>
      Effect.sync((): InboxPage => {
        reads += 1;
        return { entries: [...inbox] };
      });
    await run(
      Effect.gen(function* () {
        const fiber = yield* Effect.fork(Stream.runDrain(pollInbox(readPage, "500 millis")));
        yield* TestClock.adjust("0 millis");
        // The first read found "a", so the second followed at once; it found nothing new.
        expect(reads).toBe(2);
        yield* TestClock.adjust("499 millis");
        expect(reads).toBe(2);
        yield* TestClock.adjust("1 millis");
        expect(reads).toBe(3);
        inbox.push(entry("b"));
        yield* TestClock.adjust("500 millis");
        expect(reads).toBe(5);
        yield* Fiber.interrupt(fiber);
      }),
    );
  });
});

describe("pendingOnce", () => {
  const reads = (...pages: ReadPage[]) => Stream.fromIterable(pages);
  const complete = (...names: string[]): ReadPage => ({ entries: names.map(entry), last: true });

  it("yields each token once per run while reads keep listing it", async () => {
    const pages = reads(
      { entries: [entry("a"), entry("b")], last: false },
      complete("c"),
      complete("a", "b", "c", "d"),
      complete("b", "c", "d"),
    );
    const yielded = await run(Stream.runCollect(pendingOnce(pages)));
    expect(tokens(yielded)).toEqual(["a", "b", "c", "d"]);
  });

  it("forgets a token once a complete read no longer lists it", async () => {
    const yielded = await run(Stream.runCollect(pendingOnce(reads(complete("a"), complete(), complete("a")))));
    expect(tokens(yielded)).toEqual(["a", "a"]);
  });

  it("starts every run of the stream afresh", async () => {
    const stream = pendingOnce(reads(complete("a", "b"), complete("a", "b")));
    const first = await run(Stream.runCollect(stream));
    const second = await run(Stream.runCollect(stream));
    expect(tokens(first)).toEqual(["a", "b"]);
    expect(tokens(second)).toEqual(["a", "b"]);
  });
});

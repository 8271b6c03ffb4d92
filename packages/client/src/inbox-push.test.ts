import { Effect, Exit, Fiber, Option, Queue, Scope, Stream } from "effect";
import { ProtocolError } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { acquireHarnessEndpoint } from "./endpoint.js";
import { ListenError } from "./errors.js";
import { startFakeDaemon, type FakeDaemon } from "./testing/fake-daemon.js";
import { directItem, runWithEndpoint } from "./testing/run-endpoint.js";
import type { HarnessEndpoint, InboundDelivery } from "./types.js";

const textOf = (delivery: InboundDelivery): string => {
  if (delivery.item.kind !== "multicast") return delivery.item.kind;
  const part = delivery.item.message.content[0];
  return part?.type === "text" ? part.text : "";
};

const settle = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)));

/**
 * Runs `messages` in the background while `use` drives the fake daemon; `next` takes the next
 * delivery's text, or fails with the error that ended `messages`.
 */
const withMessages =
  <A, E>(
    use: (
      next: Effect.Effect<string, ListenError>,
      run: Fiber.RuntimeFiber<void, ListenError>,
    ) => Effect.Effect<A, E | ListenError>,
  ) =>
  (endpoint: HarnessEndpoint) =>
    Effect.gen(function* () {
      const received = yield* Queue.unbounded<InboundDelivery>();
      const run = yield* Effect.fork(
        Stream.runForEach(endpoint.messages, (delivery) => Queue.offer(received, delivery)),
      );
      const ended = Effect.flatMap(Fiber.join(run), () => Effect.dieMessage("messages ended"));
      const next = Effect.raceFirst(Effect.map(Queue.take(received), textOf), ended);
      const result = yield* use(next, run);
      yield* Fiber.interrupt(run);
      return result;
    });

describe("messages over events/stream", () => {
  let daemon: FakeDaemon;
  afterEach(() => daemon.stop().catch(() => undefined));

  it("yields an item as soon as an event announces it, without waiting for a poll", async () => {
    daemon = await startFakeDaemon({ heartbeatMs: 10_000 });
    const push = daemon.push!;
    const text = await runWithEndpoint(
      daemon,
      withMessages((next) =>
        Effect.gen(function* () {
          yield* Effect.promise(() => push.activation(1));
          daemon.deliver(directItem("pushed"));
          return yield* next;
        }),
      ),
      { pollIntervalMs: 600_000 },
    );
    expect(text).toBe("pushed");
    expect(push.attempts).toBe(1);
  });

  it("coalesces a burst of events into the read in progress and one more", async () => {
    daemon = await startFakeDaemon({ heartbeatMs: 10_000 });
    const push = daemon.push!;
    const { texts, reads } = await runWithEndpoint(
      daemon,
      withMessages((next) =>
        Effect.gen(function* () {
          yield* Effect.promise(() => push.activation(1));
          yield* settle(100);
          const before = daemon.readCount();
          for (let n = 0; n < 10; n += 1) daemon.deliver(directItem(`burst ${n}`));
          const texts: string[] = [];
          for (let n = 0; n < 10; n += 1) texts.push(yield* next);
          yield* settle(100);
          return { texts, reads: daemon.readCount() - before };
        }),
      ),
    );
    expect(texts).toEqual(Array.from({ length: 10 }, (_, n) => `burst ${n}`));
    expect(reads).toBeGreaterThanOrEqual(1);
    expect(reads).toBeLessThanOrEqual(3);
  });

  it("reattaches after heartbeat silence and reads the inbox again", async () => {
    daemon = await startFakeDaemon({ heartbeatMs: 50 });
    const push = daemon.push!;
    const text = await runWithEndpoint(
      daemon,
      withMessages((next) =>
        Effect.gen(function* () {
          const first = yield* Effect.promise(() => push.activation(1));
          first.silence();
          // The silenced stream cannot announce this item; only the read after reattaching finds it.
          daemon.deliver(directItem("while silent"));
          yield* Effect.promise(() => push.activation(2));
          return yield* next;
        }),
      ),
      { heartbeatTimeoutMs: 300 },
    );
    expect(text).toBe("while silent");
    expect(push.streams).toHaveLength(2);
    // The client closed the silent stream rather than leaving it open.
    expect(push.streams[0]!.closed).toBe(true);
  });

  it("keeps a stream that heartbeats, however long it is quiet otherwise", async () => {
    daemon = await startFakeDaemon({ heartbeatMs: 50 });
    const push = daemon.push!;
    await runWithEndpoint(
      daemon,
      withMessages(() =>
        Effect.gen(function* () {
          yield* Effect.promise(() => push.activation(1));
          yield* settle(1_000);
        }),
      ),
      { heartbeatTimeoutMs: 300 },
    );
    expect(push.attempts).toBe(1);
  });

  it("reattaches when the daemon terminates the stream, and reads what arrived meanwhile", async () => {
    daemon = await startFakeDaemon();
    const push = daemon.push!;
    const text = await runWithEndpoint(
      daemon,
      withMessages((next) =>
        Effect.gen(function* () {
          const first = yield* Effect.promise(() => push.activation(1));
          yield* Effect.promise(() => first.terminate(-32603, "Shutdown", { reason: "shutdown" }));
          daemon.deliver(directItem("between streams"));
          yield* Effect.promise(() => push.activation(2));
          return yield* next;
        }),
      ),
    );
    expect(text).toBe("between streams");
    expect(push.attempts).toBe(2);
  });

  it("ignores a late notification of a stream it has left", async () => {
    daemon = await startFakeDaemon({ heartbeatMs: 50 });
    const push = daemon.push!;
    const outcome = await runWithEndpoint(
      daemon,
      withMessages((next, run) =>
        Effect.gen(function* () {
          const first = yield* Effect.promise(() => push.activation(1));
          first.silence();
          const second = yield* Effect.promise(() => push.activation(2));
          // Frames naming the first stream: obeyed, the termination would end `messages` as consumer-taken.
          yield* Effect.promise(() =>
            second.notify(
              "notifications/events/terminated",
              { error: { code: -32012, message: "Replaced", data: { reason: "late" } } },
              first.id,
            ),
          );
          yield* Effect.promise(() =>
            second.notify("notifications/events/event", { data: { pendingCount: 7 }, cursor: null }, first.id),
          );
          daemon.deliver(directItem("on the new stream"));
          const text = yield* next;
          yield* settle(600);
          return { text, running: Option.isNone(yield* Fiber.poll(run)), secondClosed: second.closed };
        }),
      ),
      { heartbeatTimeoutMs: 300 },
    );
    expect(outcome).toEqual({ text: "on the new stream", running: true, secondClosed: false });
    expect(push.attempts).toBe(2);
  });

  it("ends with ListenError consumer-taken when a webhook subscription owns the inbox", async () => {
    daemon = await startFakeDaemon();
    const push = daemon.push!;
    push.refusal = new ProtocolError(-32012, "Forbidden", {
      reason: "a webhook subscription owns this inbox",
      owner: "webhook",
    });
    daemon.deliver(directItem("held for the webhook"));
    const error = await runWithEndpoint(daemon, (endpoint) => Effect.flip(Stream.runDrain(endpoint.messages)));
    expect(error).toBeInstanceOf(ListenError);
    expect(error.reason).toBe("consumer-taken");
    expect(error.detail).toContain("webhook");
    expect(push.attempts).toBe(1);
  });

  it("ends with ListenError consumer-taken when a newer stream takes the inbox over", async () => {
    daemon = await startFakeDaemon();
    const push = daemon.push!;
    const error = await runWithEndpoint(daemon, (endpoint) =>
      Effect.gen(function* () {
        const older = yield* Effect.fork(Stream.runDrain(endpoint.messages));
        yield* Effect.promise(() => push.activation(1));
        const newer = yield* Effect.fork(Stream.runDrain(endpoint.messages));
        const error = yield* Effect.flip(Fiber.join(older));
        yield* Fiber.interrupt(newer);
        return error;
      }),
    );
    expect(error).toBeInstanceOf(ListenError);
    expect(error.reason).toBe("consumer-taken");
  });

  it("ends with ListenError unreachable once the endpoint's scope is closed", async () => {
    daemon = await startFakeDaemon();
    const push = daemon.push!;
    const error = await Effect.runPromise(
      Effect.gen(function* () {
        const scope = yield* Scope.make();
        const endpoint = yield* Scope.extend(acquireHarnessEndpoint(daemon.url, { token: daemon.token }), scope);
        const run = yield* Effect.fork(Stream.runDrain(endpoint.messages));
        yield* Effect.promise(() => push.activation(1));
        yield* Scope.close(scope, Exit.void);
        return yield* Effect.flip(Fiber.join(run));
      }),
    );
    expect(error).toBeInstanceOf(ListenError);
    expect(error.reason).toBe("unreachable");
  });

  it("polls a daemon that does not advertise MCP Events", async () => {
    daemon = await startFakeDaemon({ events: false });
    const texts = await runWithEndpoint(
      daemon,
      withMessages((next) =>
        Effect.gen(function* () {
          daemon.deliver(directItem("first"));
          const first = yield* next;
          // With nothing new, reads go on at the poll interval.
          const reads = daemon.readCount();
          yield* Effect.promise(() => daemon.reads(reads + 3));
          daemon.deliver(directItem("second"));
          return [first, yield* next];
        }),
      ),
      { pollIntervalMs: 20 },
    );
    expect(texts).toEqual(["first", "second"]);
    expect(daemon.push).toBeUndefined();
  });
});

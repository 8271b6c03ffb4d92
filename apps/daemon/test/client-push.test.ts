/**
 * HarnessEndpoint.messages against a real daemon's events/stream (seed 000 "MCP Events and inbox",
 * "Delivery handoff"): pushed items arrive without polling, acknowledgment retires them, the
 * stream reattaches across a daemon restart, and a failed handler leaves its item for the next run.
 */
import { Data, Effect, Fiber, Queue, Stream, type Scope } from "effect";
import {
  acquireHarnessEndpoint,
  forEachDelivery,
  type HarnessEndpoint,
  type InboundDelivery,
  type ListenError,
} from "@social-harness/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Network, readAll } from "./harness/network.js";

class HandlerFailed extends Data.TaggedError("HandlerFailed")<{ readonly text: string }> {}

const textOf = (delivery: InboundDelivery): string => {
  if (delivery.item.kind !== "multicast") return delivery.item.kind;
  const part = delivery.item.message.content[0];
  return part?.type === "text" ? part.text : "";
};

describe("HarnessEndpoint.messages on a real daemon's push stream", () => {
  let net: Network;

  beforeAll(async () => {
    net = await Network.start(["alice"]);
    await net.add("bob", { extraArgs: ["--event-heartbeat-ms", "300"] });
  });
  afterAll(() => net?.close());

  // Polling every ten minutes: whatever arrives within a test arrived by push.
  const endpointOfBob = (): Effect.Effect<HarnessEndpoint, unknown, Scope.Scope> => {
    const { daemon } = net.agent("bob");
    return acquireHarnessEndpoint(new URL(daemon.mcpUrl), {
      token: daemon.runtimeToken,
      heartbeatTimeoutMs: 1_500,
      pollIntervalMs: 600_000,
    });
  };

  /** Runs `messages` in the background; `next` takes the next delivery or fails with what ended the run. */
  const receiving = (endpoint: HarnessEndpoint) =>
    Effect.gen(function* () {
      const received = yield* Queue.unbounded<InboundDelivery>();
      const run = yield* Effect.forkScoped(
        Stream.runForEach(endpoint.messages, (delivery) => Queue.offer(received, delivery)),
      );
      const ended = Effect.flatMap(Fiber.join(run), () => Effect.dieMessage("messages ended"));
      const next: Effect.Effect<InboundDelivery, ListenError> = Effect.raceFirst(Queue.take(received), ended);
      return next;
    });

  const send = (text: string) => Effect.promise(() => net.send("alice", "agent:bob", text));

  it("yields a pushed message at once, and acknowledging it retires it from the inbox", async () => {
    const { text, pending } = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const next = yield* receiving(yield* endpointOfBob());
          yield* send("hello by push");
          const delivery = yield* next;
          yield* delivery.acknowledge;
          const pending = yield* Effect.promise(() => readAll(net.agent("bob")));
          return { text: textOf(delivery), pending };
        }),
      ),
    );
    expect(text).toBe("hello by push");
    expect(pending).toEqual([]);
  });

  it("reattaches after the daemon restarts and yields a message sent after the restart", async () => {
    const texts = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const next = yield* receiving(yield* endpointOfBob());
          yield* send("before the restart");
          const before = yield* next;
          yield* before.acknowledge;
          yield* Effect.promise(() => net.restart("bob"));
          yield* send("after the restart");
          const after = yield* next;
          yield* after.acknowledge;
          return [textOf(before), textOf(after)];
        }),
      ),
    );
    expect(texts).toEqual(["before the restart", "after the restart"]);
    expect(await readAll(net.agent("bob"))).toEqual([]);
  });

  it("yields a delivery whose handler failed again on the next run", async () => {
    const { failure, handled } = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const endpoint = yield* endpointOfBob();
          yield* send("fails once");
          const failure = yield* Effect.flip(
            forEachDelivery(endpoint, (delivery) => new HandlerFailed({ text: textOf(delivery) })),
          );
          const handled: string[] = [];
          yield* Effect.raceFirst(
            forEachDelivery(endpoint, (delivery) => Effect.sync(() => handled.push(textOf(delivery)))),
            Effect.promise(async () => {
              while (handled.length === 0 || (await readAll(net.agent("bob"))).length > 0) {
                await new Promise((resolve) => setTimeout(resolve, 50));
              }
            }),
          );
          return { failure, handled };
        }),
      ),
    );
    expect(failure).toEqual(new HandlerFailed({ text: "fails once" }));
    expect(handled).toEqual(["fails once"]);
    expect(await readAll(net.agent("bob"))).toEqual([]);
  });
});

import { Chunk, Data, Effect, Redacted, Schedule, Stream } from "effect";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { forEachDelivery } from "./endpoint.js";
import { DeliveryAcknowledgeError, ListenError } from "./errors.js";
import { acknowledgeDelivery } from "./inbox.js";
import { openMcpConnection } from "./mcp-connection.js";
import { startFakeDaemon, type FakeDaemon } from "./testing/fake-daemon.js";
import { directItem, groupItem, resultItem, runWithEndpoint } from "./testing/run-endpoint.js";
import type { InboundDelivery } from "./types.js";

const guidance = {
  checkId: "chk_guidance",
  subjects: [],
  instructions: [
    {
      middlewareId: "rules",
      ruleId: "r1",
      expectation: "permitted",
      subjects: ["s1"],
      instruction: "answer if you like",
    },
  ],
};

class HandlerFailed extends Data.TaggedError("HandlerFailed")<{ readonly text: string }> {}

const textOf = (delivery: InboundDelivery): string => {
  if (delivery.item.kind !== "multicast") return delivery.item.kind;
  const part = delivery.item.message.content[0];
  return part?.type === "text" ? part.text : "";
};

/** Waits until the fake daemon's pending list satisfies `done`. */
const pendingUntil = (daemon: FakeDaemon, done: (pending: string[]) => boolean) =>
  Effect.sync(() => daemon.pending()).pipe(
    Effect.repeat({ until: done, schedule: Schedule.spaced("10 millis") }),
    Effect.asVoid,
  );

describe.each([
  { source: "push", events: true, era: "both" },
  { source: "push on the legacy era", events: true, era: "legacy" },
  { source: "polling", events: false, era: "both" },
] as const)("messages read by $source", ({ events, era }) => {
  let daemon: FakeDaemon;
  beforeEach(async () => {
    daemon = await startFakeDaemon({ pageSize: 2, events, era });
  });
  afterEach(() => daemon.stop().catch(() => undefined));

  it("yields pending items in inbox order with their guidance", async () => {
    daemon.deliver(directItem("one"));
    daemon.deliver(groupItem("two"), guidance);
    daemon.deliver(resultItem());
    const deliveries = await runWithEndpoint(daemon, (endpoint) =>
      Stream.runCollect(Stream.take(endpoint.messages, 3)).pipe(Effect.map(Chunk.toArray)),
    );
    expect(deliveries.map((d) => d.item)).toEqual([directItem("one"), groupItem("two"), resultItem()]);
    expect(deliveries.map((d) => d.guidance)).toEqual([undefined, guidance, undefined]);
    expect(daemon.pending()).toHaveLength(3);
  });

  it("yields each pending item once per run while it stays pending", async () => {
    for (const text of ["a", "b", "c"]) daemon.deliver(directItem(text));
    // Two complete reads of two pages each list a, b and c before d arrives; the next lists them again.
    void daemon.reads(4).then(() => daemon.deliver(directItem("d")));
    const deliveries = await runWithEndpoint(daemon, (endpoint) =>
      Stream.runCollect(Stream.take(endpoint.messages, 4)).pipe(Effect.map(Chunk.toArray)),
    );
    expect(deliveries.map(textOf)).toEqual(["a", "b", "c", "d"]);
  });

  it("retires acknowledged items, and a new run yields only the items left pending", async () => {
    const [, b, c] = ["a", "b", "c"].map((text) => daemon.deliver(directItem(text)));
    const second = await runWithEndpoint(daemon, (endpoint) =>
      Effect.gen(function* () {
        const first = yield* Stream.runCollect(Stream.take(endpoint.messages, 2));
        yield* Chunk.unsafeGet(first, 0).acknowledge;
        expect(daemon.pending()).toEqual([b, c]);
        return yield* Stream.runCollect(Stream.take(endpoint.messages, 2));
      }),
    );
    expect(Chunk.toArray(second).map(textOf)).toEqual(["b", "c"]);
    expect(daemon.pending()).toEqual([b, c]);
  });

  it("fails as invalid-response when a page holds an item outside the closed schema", async () => {
    daemon.deliver({ kind: "rawPost", record: {} });
    const error = await runWithEndpoint(daemon, (endpoint) => Effect.flip(Stream.runDrain(endpoint.messages)));
    expect(error).toBeInstanceOf(ListenError);
    expect(error.reason).toBe("invalid-response");
  });

  it("fails an acknowledgment of a token the daemon never issued as unknown-delivery", async () => {
    const error = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const connection = yield* openMcpConnection(daemon.url, Redacted.make(daemon.token), 5_000);
          return yield* Effect.flip(acknowledgeDelivery(connection, "dlv_" + "A".repeat(43)));
        }),
      ),
    );
    expect(error).toBeInstanceOf(DeliveryAcknowledgeError);
    expect(error.reason).toBe("unknown-delivery");
  });
});

describe("messages read by polling", () => {
  // A push run keeps reattaching while the daemon is away; a polling run reports it.
  it("fails as unreachable when the daemon stops answering", async () => {
    const daemon = await startFakeDaemon({ events: false });
    const error = await runWithEndpoint(daemon, (endpoint) =>
      Effect.promise(() => daemon.stop()).pipe(Effect.andThen(Effect.flip(Stream.runDrain(endpoint.messages)))),
    );
    expect(error).toBeInstanceOf(ListenError);
    expect(error.reason).toBe("unreachable");
  });
});

describe("forEachDelivery", () => {
  let daemon: FakeDaemon;
  beforeEach(async () => {
    daemon = await startFakeDaemon();
  });
  afterEach(() => daemon.stop());

  it("acknowledges each delivery after its handler succeeds", async () => {
    for (const text of ["a", "b"]) daemon.deliver(directItem(text));
    const handled: string[] = [];
    await runWithEndpoint(daemon, (endpoint) =>
      Effect.race(
        forEachDelivery(endpoint, (delivery) => Effect.sync(() => handled.push(textOf(delivery)))),
        pendingUntil(daemon, (pending) => pending.length === 0),
      ),
    );
    expect(handled).toEqual(["a", "b"]);
    expect(daemon.pending()).toEqual([]);
  });

  it("leaves the item pending and propagates the error when its handler fails", async () => {
    const [, b, c] = ["a", "b", "c"].map((text) => daemon.deliver(directItem(text)));
    const handled: string[] = [];
    const error = await runWithEndpoint(daemon, (endpoint) =>
      Effect.flip(
        forEachDelivery(endpoint, (delivery) => {
          const text = textOf(delivery);
          handled.push(text);
          return text === "b" ? Effect.fail(new HandlerFailed({ text })) : Effect.void;
        }),
      ),
    );
    expect(error).toEqual(new HandlerFailed({ text: "b" }));
    expect(handled).toEqual(["a", "b"]);
    expect(daemon.pending()).toEqual([b, c]);
  });
});

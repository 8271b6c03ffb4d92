/**
 * Test helpers: run an Effect against a HarnessEndpoint acquired from a fake daemon in its own
 * scope, and build valid inbound items for the fake inbox.
 */
import { Effect } from "effect";
import { acquireHarnessEndpoint, type HarnessEndpointOptions } from "../endpoint.js";
import type { HarnessEndpoint } from "../types.js";
import type { FakeDaemon } from "./fake-daemon.js";

/** Acquires an endpoint from `daemon`, runs `use`, and closes the endpoint's scope. */
export function runWithEndpoint<A, E>(
  daemon: FakeDaemon,
  use: (endpoint: HarnessEndpoint) => Effect.Effect<A, E>,
  options: HarnessEndpointOptions = {},
): Promise<A> {
  return Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(acquireHarnessEndpoint(daemon.url, { token: daemon.token, pollIntervalMs: 20, ...options }), use),
    ),
  );
}

const id = (prefix: string, fill: string) => `${prefix}_${fill.repeat(43).slice(0, 43)}`;

/** A direct multicast item from `sender` carrying `text`. */
export function directItem(text: string, sender = "agent:bob") {
  return {
    kind: "multicast",
    message: {
      kind: "direct",
      postId: id("pst", text.replace(/[^A-Za-z0-9]/g, "") || "A"),
      address: sender,
      sender,
      content: [{ type: "text", text }],
    },
  } as const;
}

/** A group multicast item in the group of alice, bob and carol. */
export function groupItem(text: string) {
  return {
    kind: "multicast",
    message: {
      kind: "group",
      postId: id("pst", "G"),
      address: "group:alice,bob,carol",
      sender: "agent:carol",
      members: ["agent:alice", "agent:bob", "agent:carol"],
      content: [{ type: "text", text }],
    },
  } as const;
}

/** A gather result with one answered member. */
export function resultItem() {
  return {
    kind: "collectiveResult",
    op: "gather",
    id: id("col", "R"),
    to: "agent:bob",
    question: "ETA?",
    outcomes: [{ member: "agent:bob", outcome: { kind: "answered", content: { eta: 5 } } }],
  } as const;
}

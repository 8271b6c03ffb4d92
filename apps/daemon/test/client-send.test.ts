import { execFileSync } from "node:child_process";
import { acquireHarnessEndpoint, SendError } from "@social-harness/client";
import { Effect, Either } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tool } from "./harness/mcp.js";
import { Network } from "./harness/network.js";
import { CLI } from "./harness/processes.js";

/** Runs `fn` with a HarnessEndpoint on `daemon`'s MCP URL, closing it afterwards. */
function withEndpoint<A, E>(
  url: string,
  token: string,
  fn: (endpoint: Effect.Effect.Success<ReturnType<typeof acquireHarnessEndpoint>>) => Effect.Effect<A, E>,
) {
  return Effect.runPromise(Effect.scoped(Effect.flatMap(acquireHarnessEndpoint(new URL(url), { token }), fn)));
}

describe("sending through the Effect client against real daemons", () => {
  let net: Network;

  beforeAll(async () => {
    net = await Network.start(["alice", "bob"]);
  });
  afterAll(() => net?.close());

  it("certifies the same content for a send without collective and a send with {op: multicast}", async () => {
    const alice = net.agent("alice").daemon;
    await withEndpoint(alice.mcpUrl, alice.runtimeToken, (endpoint) =>
      Effect.gen(function* () {
        expect(yield* endpoint.send({ to: "agent:bob", text: "plain" })).toEqual({});
        expect(yield* endpoint.send({ to: "agent:bob", text: "explicit", collective: { op: "multicast" } })).toEqual(
          {},
        );
      }),
    );
    const history = execFileSync(process.execPath, [CLI, "history", "export", "--data", alice.dataDir], {
      encoding: "utf8",
    })
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { content: unknown[] });
    const contents = history.map((r) => r.content);
    expect(contents).toContainEqual([
      { type: "text", text: "plain" },
      { type: "collective", op: "multicast" },
    ]);
    expect(contents).toContainEqual([
      { type: "text", text: "explicit" },
      { type: "collective", op: "multicast" },
    ]);
  });

  it("rebuilds a refusal as the typed SendError", async () => {
    const alice = net.agent("alice").daemon;
    const result = await withEndpoint(alice.mcpUrl, alice.runtimeToken, (endpoint) =>
      Effect.either(endpoint.send({ to: "agent:nobody-here", text: "x" })),
    );
    expect(Either.isLeft(result)).toBe(true);
    const error = Either.isLeft(result) ? result.left : undefined;
    expect(error).toBeInstanceOf(SendError);
    expect(error).toMatchObject({ _tag: "SendError", reason: "unknown-agent" });
  });

  it("exposes exactly the four runtime tools and proof-free results", async () => {
    const { client } = net.agent("alice").mcp;
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual([
      "acknowledge_delivery",
      "read_event",
      "read_inbox",
      "send_message",
    ]);
    // Send returns no receipt, proof, record hash or protocol state.
    expect(await tool(client, "send_message", { to: "agent:bob", text: "no receipts" })).toEqual({});
  });
});

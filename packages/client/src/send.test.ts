import { Effect } from "effect";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProtocolError } from "@modelcontextprotocol/server";
import { mintCollectiveId } from "@social-harness/protocol";
import { CollectiveError, FirewallSendError, SendError } from "./errors.js";
import { refuse, startFakeDaemon, type FakeDaemon } from "./testing/fake-daemon.js";
import { runWithEndpoint } from "./testing/run-endpoint.js";
import type { SendInput } from "./types.js";

const operationId = mintCollectiveId("alice").id;
const checkId = "chk_" + "C".repeat(43);
const form = { type: "object", properties: { eta: { type: "integer" } }, required: ["eta"] } as const;
const guidance = {
  checkId,
  subjects: [{ id: "s1", sender: "agent:alice", recipients: ["agent:bob"], text: "hi" }],
  instructions: [
    { middlewareId: "rules", ruleId: "r1", uncertain: { choice: "allow", probability: 0.6 }, instruction: "be brief" },
  ],
};
const hello: SendInput = { to: "agent:bob", text: "hello" };

const sendFailure = (daemon: FakeDaemon, input: SendInput = hello) =>
  runWithEndpoint(daemon, (endpoint) => Effect.flip(endpoint.send(input)));

describe.each(["both", "legacy"] as const)("send against a daemon serving %s era(s)", (era) => {
  let daemon: FakeDaemon;
  beforeEach(async () => {
    daemon = await startFakeDaemon({ era });
  });
  afterEach(() => daemon.stop());

  it("sends a multicast as its text and returns an empty result", async () => {
    const result = await runWithEndpoint(daemon, (endpoint) => endpoint.send(hello));
    expect(result).toEqual({});
    expect(daemon.calls).toEqual([
      { name: "send_message", arguments: { to: "agent:bob", text: "hello" }, meta: undefined },
    ]);
  });

  it("sends a gather as its operation text with failureDelivery in _meta and returns the operation id", async () => {
    daemon.answerSend = () => Promise.resolve({ operationId });
    const input: SendInput = {
      to: "group:bob,carol",
      text: "ETA?",
      collective: { op: "gather", deadline: 60, requestedSchema: form },
    };
    const result = await runWithEndpoint(daemon, (endpoint) => endpoint.send(input, { failureDelivery: "inbound" }));
    expect(result).toEqual({ operationId });
    const [call] = daemon.calls;
    expect(JSON.parse(String(call?.arguments.text))).toEqual({ gather: "ETA?", deadline: 60, requestedSchema: form });
    expect(call?.meta?.["org.social-harness/send"]).toEqual({ failureDelivery: "inbound" });
  });

  it("sends an answer and returns the id of the request it answered", async () => {
    daemon.answerSend = () => Promise.resolve({ operationId });
    const input: SendInput = { to: "agent:bob", collectiveResponse: { action: "accept", content: { eta: 5 } } };
    const result = await runWithEndpoint(daemon, (endpoint) => endpoint.send(input, { failureDelivery: "result" }));
    expect(result).toEqual({ operationId });
    expect(daemon.calls[0]?.arguments).toEqual({ to: "agent:bob", text: '{"action":"accept","content":{"eta":5}}' });
    expect(daemon.calls[0]?.meta?.["org.social-harness/send"]).toEqual({ failureDelivery: "result" });
  });

  it("returns the firewall's guidance and ignores result fields it does not name", async () => {
    daemon.answerSend = () => Promise.resolve({ guidance, receipt: "ignored" });
    expect(await runWithEndpoint(daemon, (endpoint) => endpoint.send(hello))).toEqual({ guidance });
  });

  it("refuses a multicast whose text reads as an operation as content-invalid without calling the daemon", async () => {
    const error = await sendFailure(daemon, { to: "agent:bob", text: '{"action":"decline"}' });
    expect(error).toBeInstanceOf(SendError);
    expect(error).toMatchObject({ reason: "content-invalid" });
    expect((error as SendError).detail).toMatch(/operation/);
    expect(daemon.calls).toEqual([]);
  });

  it("rebuilds a SendError refusal", async () => {
    daemon.answerSend = () => Promise.reject(refuse({ reason: "unknown-agent", detail: "bob is not registered" }));
    expect(await sendFailure(daemon)).toEqual(
      new SendError({ reason: "unknown-agent", detail: "bob is not registered" }),
    );
  });

  it.each([
    { kind: "members-unreachable", members: [{ member: "agent:bob", reason: "unknown-agent" }] },
    { kind: "no-open-request" },
    { kind: "several-open-requests", requests: [operationId, mintCollectiveId("alice").id] },
  ] as const)("rebuilds a CollectiveError whose failure is $kind", async (failure) => {
    daemon.answerSend = () => Promise.reject(refuse({ reason: "collective-failed", id: operationId, failure }));
    const error = await sendFailure(daemon);
    expect(error).toBeInstanceOf(CollectiveError);
    expect(error).toEqual(new CollectiveError({ id: operationId, failure }));
  });

  it("rebuilds a FirewallSendError", async () => {
    daemon.answerSend = () =>
      Promise.reject(refuse({ reason: "firewall-refused", checkId, refusal: "held", feedback: "wait for bob" }));
    const error = await sendFailure(daemon);
    expect(error).toBeInstanceOf(FirewallSendError);
    expect(error).toEqual(new FirewallSendError({ checkId, refusal: "held", feedback: "wait for bob" }));
  });

  it("reads a JSON-RPC error without a typed failure as outcome-unknown", async () => {
    daemon.answerSend = () => Promise.reject(new ProtocolError(-32603, "internal error"));
    expect(await sendFailure(daemon)).toMatchObject({ _tag: "SendError", reason: "outcome-unknown" });
  });

  it("reads a result that fails the output schema as outcome-unknown", async () => {
    daemon.answerSend = () => Promise.resolve({ operationId: 42 });
    expect(await sendFailure(daemon)).toMatchObject({ _tag: "SendError", reason: "outcome-unknown" });
  });
});

describe("send when the request fails in transit", () => {
  let daemon: FakeDaemon;
  beforeEach(async () => {
    daemon = await startFakeDaemon();
  });
  afterEach(() => daemon.stop().catch(() => undefined));

  it("fails as outcome-unknown when the daemon does not answer within the request timeout", async () => {
    let release = () => {};
    daemon.answerSend = () => new Promise((resolve) => (release = () => resolve({})));
    const error = await runWithEndpoint(daemon, (endpoint) => Effect.flip(endpoint.send(hello)), {
      requestTimeoutMs: 1_000,
    });
    release();
    expect(error).toBeInstanceOf(SendError);
    expect(error).toMatchObject({ reason: "outcome-unknown" });
    expect((error as SendError).detail).toMatch(/timed out/);
    expect(daemon.calls).toHaveLength(1);
  });

  it("fails as network-unavailable when the connection is refused before anything is sent", async () => {
    const error = await runWithEndpoint(daemon, (endpoint) =>
      Effect.promise(() => daemon.stop()).pipe(Effect.andThen(Effect.flip(endpoint.send(hello)))),
    );
    expect(error).toBeInstanceOf(SendError);
    expect(error).toMatchObject({ reason: "network-unavailable" });
    expect(daemon.calls).toEqual([]);
  });
});

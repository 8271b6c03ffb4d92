/**
 * The MCP tool send_message (seed 001 "MCP adapter projection", SPEC §6) on real daemons: exactly
 * {to, text} in the arguments, RuntimeSendOptions only in _meta["org.social-harness/send"],
 * exactly {} for a multicast, JSON-looking prose as a multicast, and a malformed operation
 * refused as content-invalid naming each failing field. Refused sends leave nothing behind.
 */
import { SendErrorDataSchema } from "@social-harness/protocol";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { acknowledgeAll, textOf } from "../harness/inbox.js";
import { callTool, connect, eventually, tool } from "../harness/mcp.js";
import { modernEnvelope, MODERN_VERSION, postMcp } from "../harness/raw-mcp.js";
import { Network, readAll, waitForItems } from "../harness/network.js";

const OPTIONS_KEY = "org.social-harness/send";
const INVALID_PARAMS = -32602;

describe("send_message", () => {
  let net: Network;

  beforeAll(async () => {
    net = await Network.start(["alice", "bob"]);
  });
  afterAll(() => net?.close());
  beforeEach(() => acknowledgeAll(net.agent("bob")));

  const alice = () => net.agent("alice").mcp.client;
  const bob = () => net.agent("bob");

  /**
   * Sends `sentinel` and returns the texts in bob's inbox once it arrives. Alice's posts to bob
   * share one conversation, offered in order, so anything sent before the sentinel is there by then.
   */
  async function inboxAfter(sentinel: string): Promise<string[]> {
    expect(await net.send("alice", "agent:bob", sentinel)).toEqual({});
    return eventually(
      async () => {
        const texts = (await readAll(bob())).map(textOf);
        return texts.includes(sentinel) ? texts : undefined;
      },
      20_000,
      `${sentinel} at bob`,
    );
  }

  it("answers a plain multicast with exactly {} and delivers it", async () => {
    const outcome = await callTool(alice(), "send_message", { to: "agent:bob", text: "plain" });
    // Seed 001: a multicast has no operation id, so its result is {}.
    expect(outcome).toEqual({ ok: true, result: {} });
    expect((await waitForItems(bob(), 1)).map(textOf)).toEqual(["plain"]);
  });

  it("makes a distinct post for each call with identical input", async () => {
    await net.send("alice", "agent:bob", "same");
    await net.send("alice", "agent:bob", "same");
    const items = await waitForItems(bob(), 2);
    expect(items.map(textOf)).toEqual(["same", "same"]);
    expect(items[0]!.item.message.postId).not.toBe(items[1]!.item.message.postId);
  });

  it.each([
    ["postId", { postId: "pst_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }],
    ["failureDelivery", { failureDelivery: "inbound" }],
    ["collective", { collective: { op: "multicast" } }],
    ["operationId", { operationId: "col_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }],
    ["_meta", { _meta: { [OPTIONS_KEY]: { failureDelivery: "result" } } }],
  ])("refuses %s in the arguments as InvalidParams and sends nothing", async (field, extra) => {
    // Seed 001: bookkeeping fields in tool arguments are rejected; there is no alternate argument format.
    const outcome = await callTool(alice(), "send_message", { to: "agent:bob", text: `with ${field}`, ...extra });
    expect(outcome).toMatchObject({ ok: false, code: INVALID_PARAMS });
    expect(await inboxAfter(`after ${field}`)).toEqual([`after ${field}`]);
  });

  it.each(["modern", "legacy"] as const)(
    "refuses an extra __proto__ key in the arguments as InvalidParams and sends nothing (%s era)",
    async (era) => {
      // JSON.parse keeps "__proto__" as an own key; a copy made by assignment would drop it.
      const text = `with __proto__ (${era})`;
      const params =
        `{"name":"send_message","arguments":{"to":"agent:bob","text":${JSON.stringify(text)},"__proto__":{"x":1}}` +
        (era === "modern" ? `,"_meta":${JSON.stringify(modernEnvelope())}}` : "}");
      const { daemon } = net.agent("alice");
      const answer = await postMcp(daemon.mcpUrl, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":${params}}`, {
        authorization: `Bearer ${daemon.runtimeToken}`,
        ...(era === "modern"
          ? { "mcp-protocol-version": MODERN_VERSION, "mcp-method": "tools/call", "mcp-name": "send_message" }
          : {}),
      });
      expect(answer.response).toMatchObject({ id: 7, error: { code: INVALID_PARAMS } });
      expect(answer.response?.error.message).toContain("__proto__");
      expect(await inboxAfter(`after __proto__ (${era})`)).toEqual([`after __proto__ (${era})`]);
    },
  );

  it("accepts RuntimeSendOptions in _meta, and an omitted entry means result delivery", async () => {
    const cases: [string, Record<string, unknown> | undefined][] = [
      ["result", { [OPTIONS_KEY]: { failureDelivery: "result" } }],
      ["inbound", { [OPTIONS_KEY]: { failureDelivery: "inbound" } }],
      ["empty options", { [OPTIONS_KEY]: {} }],
      ["no options", undefined],
    ];
    for (const [text, meta] of cases) {
      expect(await callTool(alice(), "send_message", { to: "agent:bob", text }, meta)).toEqual({
        ok: true,
        result: {},
      });
    }
    expect((await waitForItems(bob(), cases.length)).map(textOf)).toEqual(cases.map(([text]) => text));
  });

  it.each([
    ["an unknown key", { failureDelivery: "result", retries: 3 }],
    ["an unknown failureDelivery", { failureDelivery: "later" }],
    ["a null failureDelivery", { failureDelivery: null }],
    ["a string", "inbound"],
    ["a number", 1],
    ["a list", [{ failureDelivery: "result" }]],
    ["null", null],
  ])("refuses runtime options that are %s as InvalidParams and sends nothing", async (what, options) => {
    // Seed 001: malformed runtime options are rejected, validated separately from the arguments.
    const outcome = await callTool(
      alice(),
      "send_message",
      { to: "agent:bob", text: `options: ${what}` },
      { [OPTIONS_KEY]: options },
    );
    expect(outcome).toMatchObject({ ok: false, code: INVALID_PARAMS });
    expect(await inboxAfter(`after ${what}`)).toEqual([`after ${what}`]);
  });

  it("leaves unrelated _meta keys to their transport meaning and sends", async () => {
    // Seed 001: unrelated SDK metadata retains its transport meaning.
    const metas = [
      { "com.example/trace": { traceId: "abc", sampled: true } },
      { progressToken: "progress-1" },
      { "com.example/trace": "x", progressToken: 7, [OPTIONS_KEY]: { failureDelivery: "inbound" } },
    ];
    for (const [i, meta] of metas.entries()) {
      expect(await callTool(alice(), "send_message", { to: "agent:bob", text: `meta ${i}` }, meta)).toEqual({
        ok: true,
        result: {},
      });
    }
    expect((await waitForItems(bob(), 3)).map(textOf)).toEqual(["meta 0", "meta 1", "meta 2"]);
  });

  it("carries runtime options from a legacy-era client as well", async () => {
    const legacy = await connect(net.agent("alice").daemon.mcpUrl, net.agent("alice").daemon.runtimeToken, "legacy");
    try {
      expect(
        await tool(
          legacy.client,
          "send_message",
          { to: "agent:bob", text: "legacy" },
          {
            [OPTIONS_KEY]: { failureDelivery: "inbound" },
          },
        ),
      ).toEqual({});
      expect(
        await callTool(legacy.client, "send_message", { to: "agent:bob", text: "x" }, { [OPTIONS_KEY]: "inbound" }),
      ).toMatchObject({ ok: false, code: INVALID_PARAMS });
    } finally {
      await legacy.close();
    }
    expect(await inboxAfter("after legacy")).toEqual(["legacy", "after legacy"]);
  });

  it("sends JSON-looking prose as a multicast carrying exactly that text", async () => {
    // Seed 003 acceptance: parseMessageText sends plain text and JSON-looking prose as a multicast.
    const texts = [
      '{"hello": "world"}',
      "{not json}",
      "[1, 2, 3]",
      '{"gatherer": "not an operation"}',
      "{}",
      '"a JSON string"',
      '  {"nested": {"action": "decline"}}  ',
    ];
    for (const text of texts) expect(await net.send("alice", "agent:bob", text)).toEqual({});
    const items = await waitForItems(bob(), texts.length);
    expect(items.map((e) => e.item.message.content)).toEqual(texts.map((text) => [{ type: "text", text }]));
  });

  it.each([
    [
      "a gather with an empty question, a zero deadline, a bad schema and an extra key",
      {
        gather: "",
        deadline: 0,
        requestedSchema: { type: "object", properties: { a: { type: "object" } } },
        extra: 1,
      },
      ["gather", "deadline", "requestedSchema.properties.a.type", "extra"],
    ],
    [
      "an all_gather past thirty days",
      { all_gather: "ETA?", deadline: 2_592_001, requestedSchema: { type: "object", properties: {} } },
      ["deadline"],
    ],
    ["an unknown action", { action: "maybe" }, ["action"]],
    ["an accept without content", { action: "accept" }, ["content"]],
    ["an accept with a nested answer", { action: "accept", content: { a: { b: 1 } } }, ["content.a"]],
    ["a decline with a reason", { action: "decline", why: "busy" }, ["why"]],
    ["two operations at once", { gather: "q", action: "decline" }, ["gather", "action"]],
  ])("refuses %s as content-invalid naming each failing field", async (what, operation, fields) => {
    const outcome = await callTool(alice(), "send_message", { to: "agent:bob", text: JSON.stringify(operation) });
    expect(outcome).toMatchObject({ ok: false, code: -32030, data: { reason: "content-invalid" } });
    const data = SendErrorDataSchema.strict().parse(!outcome.ok && outcome.data);
    for (const field of fields) expect(data.detail).toContain(field);
    expect(await inboxAfter(`after ${what}`)).toEqual([`after ${what}`]);
  });
});

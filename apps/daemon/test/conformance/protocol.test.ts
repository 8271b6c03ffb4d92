/**
 * MCP protocol conformance of a real daemon (SPEC §6, §7, §9, §12; research/mcp-sdk-v2.md §5,
 * §7): both protocol eras on one /mcp endpoint, the 2026-07-28 discovery result and header
 * ladder, the exact tool schemas, argument mistakes as InvalidParams, and bearer principals.
 */
import { mintId } from "@social-harness/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { acknowledgeAll, aliasOf, readPage } from "../harness/inbox.js";
import { callTool, connect, tool, type Connected, type Era } from "../harness/mcp.js";
import { Network, waitForItems } from "../harness/network.js";
import { legacyRequest, modernRequest, MODERN_VERSION, postMcp } from "../harness/raw-mcp.js";

const ALL_TOOLS = ["send_message", "read_inbox", "acknowledge_delivery", "read_event"];
const OWNER_TOOLS = ["read_inbox", "acknowledge_delivery", "read_event"];
const INVALID_PARAMS = -32602;

describe("the MCP endpoint", () => {
  let net: Network;
  let legacy: Connected;
  let url: string;
  let runtimeToken: string;

  const modern = () => net.agent("alice").mcp;
  const clients = (): [Era, Connected][] => [
    ["modern", modern()],
    ["legacy", legacy],
  ];

  beforeAll(async () => {
    net = await Network.start(["alice", "bob"]);
    const alice = net.agent("alice").daemon;
    url = alice.mcpUrl;
    runtimeToken = alice.runtimeToken;
    legacy = await connect(url, runtimeToken, "legacy");
  });
  afterAll(async () => {
    await legacy?.close();
    await net?.close();
  });

  describe("serves both protocol eras on one endpoint", () => {
    it("negotiates 2026-07-28 with a pinned client and the initialize era with a legacy client", () => {
      expect(modern().client.getProtocolEra()).toBe("modern");
      expect(modern().client.getNegotiatedProtocolVersion()).toBe(MODERN_VERSION);
      expect(legacy.client.getProtocolEra()).toBe("legacy");
    });

    it("lists the same four tools to both eras", async () => {
      for (const [, mcp] of clients()) {
        const { tools } = await mcp.client.listTools();
        expect(tools.map((t) => t.name)).toEqual(ALL_TOOLS);
      }
    });

    it("calls tools from both eras, and a refusal keeps its code and data in both", async () => {
      await acknowledgeAll(net.agent("bob"));
      for (const [era, mcp] of clients()) {
        expect(await tool(mcp.client, "send_message", { to: "agent:bob", text: `from the ${era} era` })).toEqual({});
        expect(await tool(mcp.client, "read_inbox", {})).toEqual({ items: [] });
        expect(await callTool(mcp.client, "send_message", { to: "agent:nobody", text: "x" })).toMatchObject({
          ok: false,
          code: -32030,
          data: { reason: "unknown-agent" },
        });
      }
      const texts = (await waitForItems(net.agent("bob"), 2)).map((e) => e.item.message.content[0].text);
      expect(texts).toEqual(["from the modern era", "from the legacy era"]);
    });
  });

  describe("discovery and capabilities", () => {
    it("answers server/discover with 2026-07-28 and both events capability keys", async () => {
      const answer = await modernRequest(url, runtimeToken, "server/discover");
      expect(answer.status).toBe(200);
      const result = answer.response!.result;
      expect(result.supportedVersions).toEqual([MODERN_VERSION]);
      expect(result.resultType).toBe("complete");
      // SPEC §9: advertises capabilities.events: {} and extensions["io.modelcontextprotocol/events"]: {}.
      expect(result.capabilities.events).toEqual({});
      expect(result.capabilities.extensions).toEqual({ "io.modelcontextprotocol/events": {} });
    });

    it("shows the events capability to the official client when asked with a loose result schema", async () => {
      // The v2 client's own capability view strips the top-level `events` key (research §5).
      expect(modern().client.getServerCapabilities()?.extensions).toEqual({ "io.modelcontextprotocol/events": {} });
      const discovered = await modern().client.request(
        { method: "server/discover", params: {} } as never,
        z.looseObject({ supportedVersions: z.array(z.string()), capabilities: z.looseObject({}) }),
      );
      expect(discovered.supportedVersions).toEqual([MODERN_VERSION]);
      expect(discovered.capabilities).toMatchObject({
        events: {},
        extensions: { "io.modelcontextprotocol/events": {} },
      });
    });

    it("advertises the same capabilities in the legacy initialize result", async () => {
      const answer = await legacyRequest(url, runtimeToken, "initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "raw-conformance", version: "1.0.0" },
      });
      expect(answer.status).toBe(200);
      expect(answer.response!.result.capabilities).toMatchObject({
        events: {},
        extensions: { "io.modelcontextprotocol/events": {} },
      });
    });

    it("marks modern tool results complete and leaves legacy results unmarked", async () => {
      const modernAnswer = await modernRequest(url, runtimeToken, "tools/call", { name: "read_inbox", arguments: {} });
      expect(modernAnswer.status).toBe(200);
      expect(modernAnswer.response!.result).toMatchObject({ resultType: "complete", structuredContent: { items: [] } });
      const legacyAnswer = await legacyRequest(url, runtimeToken, "tools/call", { name: "read_inbox", arguments: {} });
      expect(legacyAnswer.status).toBe(200);
      expect(legacyAnswer.response!.result.structuredContent).toEqual({ items: [] });
      expect(legacyAnswer.response!.result).not.toHaveProperty("resultType");
    });
  });

  describe("the 2026-07-28 request ladder", () => {
    const call = { name: "read_inbox", arguments: {} };

    it("refuses a modern request without an MCP-Protocol-Version header with 400 and -32020", async () => {
      const answer = await modernRequest(url, runtimeToken, "tools/call", call, { "mcp-protocol-version": undefined });
      expect(answer.status).toBe(400);
      expect(answer.response!.error.code).toBe(-32020);
    });

    it("refuses a header that disagrees with the body's protocol version with 400 and -32020", async () => {
      for (const header of ["2025-11-25", "2027-01-01"]) {
        const answer = await modernRequest(url, runtimeToken, "tools/call", call, { "mcp-protocol-version": header });
        expect(answer.status).toBe(400);
        expect(answer.response!.error.code).toBe(-32020);
      }
    });

    it("refuses a tools/call whose Mcp-Name header names another tool with 400 and -32020", async () => {
      const answer = await modernRequest(url, runtimeToken, "tools/call", call, { "mcp-name": "read_event" });
      expect(answer.status).toBe(400);
      expect(answer.response!.error.code).toBe(-32020);
    });

    it("answers an unknown method with 404 and -32601", async () => {
      const answer = await modernRequest(url, runtimeToken, "social/unknown");
      expect(answer.status).toBe(404);
      expect(answer.response!.error.code).toBe(-32601);
    });

    it("answers an unsupported protocol version with -32022 naming 2026-07-28", async () => {
      const answer = await modernRequest(
        url,
        runtimeToken,
        "tools/call",
        { ...call, _meta: { "io.modelcontextprotocol/protocolVersion": "2027-01-01" } },
        { "mcp-protocol-version": "2027-01-01" },
      );
      expect(answer.status).toBe(400);
      expect(answer.response!.error).toMatchObject({ code: -32022, data: { supported: [MODERN_VERSION] } });
    });
  });

  describe("tool schemas as tools/list advertises them", () => {
    const schemas = async () => {
      const { tools } = await modern().client.listTools();
      return new Map(tools.map((t) => [t.name, t]));
    };
    /** The shape of an object schema: its property types, required keys and closedness. */
    const shapeOf = (schema: Record<string, any>) => ({
      type: schema.type,
      properties: Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([k, v]: [string, any]) => [k, v.type]),
      ),
      required: schema.required ?? [],
      additionalProperties: schema.additionalProperties,
    });

    it("advertises each tool's exact input schema, closed to other keys", async () => {
      const tools = await schemas();
      // Seed 001: send_message has exactly {to, text}; runtime options never travel in the arguments.
      expect(shapeOf(tools.get("send_message")!.inputSchema)).toEqual({
        type: "object",
        properties: { to: "string", text: "string" },
        required: ["to", "text"],
        additionalProperties: false,
      });
      // Seed 000: read_inbox accepts {cursor?: string}.
      expect(shapeOf(tools.get("read_inbox")!.inputSchema)).toEqual({
        type: "object",
        properties: { cursor: "string" },
        required: [],
        additionalProperties: false,
      });
      // Seed 000: acknowledge_delivery accepts exactly {"deliveryToken": DeliveryToken}.
      expect(shapeOf(tools.get("acknowledge_delivery")!.inputSchema)).toEqual({
        type: "object",
        properties: { deliveryToken: "string" },
        required: ["deliveryToken"],
        additionalProperties: false,
      });
      expect(shapeOf(tools.get("read_event")!.inputSchema)).toEqual({
        type: "object",
        properties: { eventId: "string" },
        required: ["eventId"],
        additionalProperties: false,
      });
    });

    it("advertises each tool's exact output schema", async () => {
      const tools = await schemas();
      expect(shapeOf(tools.get("send_message")!.outputSchema!)).toEqual({
        type: "object",
        properties: { operationId: "string", guidance: "object" },
        required: [],
        additionalProperties: false,
      });
      expect(shapeOf(tools.get("read_inbox")!.outputSchema!)).toEqual({
        type: "object",
        properties: { items: "array", nextCursor: "string" },
        required: ["items"],
        additionalProperties: false,
      });
      // Seed 000: acknowledge_delivery returns exactly {}.
      expect(shapeOf(tools.get("acknowledge_delivery")!.outputSchema!)).toEqual({
        type: "object",
        properties: {},
        required: [],
        additionalProperties: false,
      });
      const readEvent = shapeOf(tools.get("read_event")!.outputSchema!);
      expect(Object.keys(readEvent.properties)).toEqual(["item", "guidance"]);
      expect(readEvent).toMatchObject({ type: "object", required: ["item"], additionalProperties: false });
    });
  });

  describe("argument mistakes", () => {
    const token = mintId("delivery");
    const mistakes: [string, string, Record<string, unknown>][] = [
      ["an unknown tool", "post_message", { to: "agent:bob", text: "x" }],
      ["an extra key", "send_message", { to: "agent:bob", text: "x", bogus: 1 }],
      ["a wrong type", "send_message", { to: 5, text: "x" }],
      ["a missing argument", "send_message", { to: "agent:bob" }],
      ["no arguments", "send_message", {}],
      ["a wrong cursor type", "read_inbox", { cursor: 7 }],
      ["a cursor the inbox never issued", "read_inbox", { cursor: "bm90LWEtY3Vyc29y" }],
      ["an extra key", "read_inbox", { cursor: undefined, limit: 10 }],
      ["a short delivery token", "acknowledge_delivery", { deliveryToken: "dlv_short" }],
      ["an event id as a delivery token", "acknowledge_delivery", { deliveryToken: `evt_${token.slice(4)}` }],
      ["a non-canonical delivery token", "acknowledge_delivery", { deliveryToken: aliasOf(token) }],
      ["a missing delivery token", "acknowledge_delivery", {}],
      ["a delivery token as an event id", "read_event", { eventId: token }],
      ["a padded event id", "read_event", { eventId: `evt_${token.slice(4)}=` }],
      ["a wrong event id type", "read_event", { eventId: null }],
    ];

    it.each(mistakes)("refuses %s to %s as InvalidParams in both eras", async (_what, name, args) => {
      for (const [, mcp] of clients()) {
        const outcome = await callTool(mcp.client, name, args);
        expect(outcome).toMatchObject({ ok: false, code: INVALID_PARAMS });
      }
    });

    it("refuses arguments that are not an object as InvalidParams", async () => {
      for (const value of [[], "text", 3, null]) {
        const answer = await modernRequest(url, runtimeToken, "tools/call", { name: "read_inbox", arguments: value });
        expect(answer.status).toBe(200);
        expect(answer.response!.error.code).toBe(INVALID_PARAMS);
      }
    });
  });

  describe("bearer principals", () => {
    it("refuses a request without a token or with a wrong one with HTTP 401, in both eras", async () => {
      const owner = net.agent("alice").daemon.ownerToken;
      const body = {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      };
      for (const authorization of [
        undefined,
        "Bearer sh_wrong",
        `Bearer ${runtimeToken}x`,
        `Bearer ${owner.slice(0, -1)}`,
        `Basic ${runtimeToken}`,
        runtimeToken,
      ]) {
        expect((await postMcp(url, body, { authorization })).status).toBe(401);
        expect((await modernRequest(url, "", "server/discover", {}, { authorization })).status).toBe(401);
      }
    });

    it("refuses the official client's connection with a wrong token", async () => {
      // The client reports the 401 in its message (pinned era) or its HTTP error data (legacy era).
      await expect(connect(url, "sh_wrong")).rejects.toThrow(/HTTP 401/);
      await expect(connect(url, "sh_wrong", "legacy")).rejects.toMatchObject({ data: { status: 401 } });
    });

    it("shows the runtime token all four tools and the owner token the three inbox tools", async () => {
      const bob = net.agent("bob");
      await acknowledgeAll(bob);
      await net.send("alice", "agent:bob", "for the owner's eyes");
      const [pending] = await waitForItems(bob, 1);
      const owner = await connect(bob.daemon.mcpUrl, bob.daemon.ownerToken);
      const ownerLegacy = await connect(bob.daemon.mcpUrl, bob.daemon.ownerToken, "legacy");
      try {
        for (const mcp of [owner, ownerLegacy]) {
          expect((await mcp.client.listTools()).tools.map((t) => t.name)).toEqual(OWNER_TOOLS);
          expect(await callTool(mcp.client, "send_message", { to: "agent:alice", text: "x" })).toMatchObject({
            ok: false,
            code: INVALID_PARAMS,
          });
          // Owner diagnostics read the same admitted inbox the runtime reads (seed 000).
          expect(await tool(mcp.client, "read_inbox", {})).toEqual(await readPage(bob));
          expect(await tool(mcp.client, "read_event", { eventId: `evt_${pending!.deliveryToken.slice(4)}` })).toEqual({
            item: pending!.item,
          });
        }
        // An owner may discard an unwanted item (seed 000 "Webhook consumer").
        expect(await tool(owner.client, "acknowledge_delivery", { deliveryToken: pending!.deliveryToken })).toEqual({});
        expect(await readPage(bob)).toEqual({ items: [] });
      } finally {
        await owner.close();
        await ownerLegacy.close();
      }
    });
  });
});

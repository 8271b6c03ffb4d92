import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { createMcpEndpoint } from "./mcp-endpoint.js";
import { defineTool, ToolRefusal } from "./tool.js";

const credentials = { runtimeToken: "runtime-secret", ownerToken: "owner-secret" } as never;
const tools = [
  defineTool({
    name: "echo",
    title: "Echo",
    description: "echoes",
    input: z.strictObject({ text: z.string(), n: z.number().optional() }),
    output: z.strictObject({ text: z.string(), meta: z.unknown().optional() }),
    principals: ["runtime"],
    run: (args, ctx) => {
      if (args.text === "refuse") return Promise.reject(new ToolRefusal(-32030, "refused", { reason: "because" }));
      if (args.text === "bad-output") return Promise.resolve({ text: 1 } as never);
      if (args.text === "throw") return Promise.reject(new Error("boom"));
      return Promise.resolve({ text: args.text, meta: ctx.meta?.["org.example/key"] });
    },
  }),
  defineTool({
    name: "owner_only",
    title: "Owner only",
    description: "for the owner",
    input: z.strictObject({}),
    output: z.strictObject({}),
    principals: ["owner"],
    run: () => Promise.resolve({}),
  }),
];

async function serve(direct: boolean): Promise<{ server: Server; url: string }> {
  const endpoint = createMcpEndpoint({
    credentials,
    tools,
    instructions: "test",
    log: pino({ level: "silent" }),
    direct,
  });
  const server = createServer((req, res) => void endpoint.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` };
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

function call(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: {
      authorization: "Bearer runtime-secret",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": (body as { params?: { name?: string } }).params?.name ?? "",
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: await r.text() }));
}

const request = (name: string, args: unknown, meta: Record<string, unknown> = META, id: unknown = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, _meta: meta },
});

describe("the direct tools/call path", () => {
  let direct: { server: Server; url: string };
  let sdk: { server: Server; url: string };
  beforeAll(async () => {
    direct = await serve(true);
    sdk = await serve(false);
  });
  afterAll(() => {
    direct.server.close();
    sdk.server.close();
  });

  const cases: [string, unknown, Record<string, string>?][] = [
    ["a result", request("echo", { text: "hi" })],
    ["a string id", request("echo", { text: "hi" }, META, "req-7")],
    ["tool meta", request("echo", { text: "hi" }, { ...META, "org.example/key": { a: 1 } })],
    [
      "client info",
      request("echo", { text: "hi" }, { ...META, "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" } }),
    ],
    ["a refusal", request("echo", { text: "refuse" })],
    ["invalid arguments", request("echo", { text: 5 })],
    ["an unknown argument", request("echo", { text: "hi", extra: true })],
    [
      "an own __proto__ argument",
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi","__proto__":{}},"_meta":${JSON.stringify(META)}}}`,
      { "mcp-name": "echo" },
    ],
    ["a result that fails its schema", request("echo", { text: "bad-output" })],
    ["a tool that throws", request("echo", { text: "throw" })],
    ["an unknown tool", request("nope", {})],
    ["a tool of another principal", request("owner_only", {})],
    ["a progress token", request("echo", { text: "hi" }, { ...META, progressToken: 3 })],
    ["a mismatched Mcp-Name", request("echo", { text: "hi" }), { "mcp-name": "other" }],
    [
      "no protocol version in _meta",
      request("echo", { text: "hi" }, { "io.modelcontextprotocol/clientCapabilities": {} }),
    ],
  ];

  for (const [what, body, headers] of cases) {
    it(`answers ${what} exactly as the SDK does`, async () => {
      const [ours, theirs] = await Promise.all([call(direct.url, body, headers), call(sdk.url, body, headers)]);
      expect(ours).toEqual(theirs);
    });
  }
});

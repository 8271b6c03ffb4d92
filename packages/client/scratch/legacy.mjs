import http from "node:http";
import * as z from "zod";
import { McpServer, ProtocolError, legacyStatelessFallback } from "@modelcontextprotocol/server";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
function factory() {
  const mcp = new McpServer({ name: "fake", version: "0" });
  mcp.registerTool("send_message", { inputSchema: z.strictObject({ to: z.string(), text: z.string() }) }, async () => ({ content: [] }));
  mcp.server.setRequestHandler("tools/call", async (request, ctx) => {
    console.log("server", JSON.stringify(request.params));
    if (request.params.arguments?.text === "refuse") throw new ProtocolError(-32030, "refused", { reason: "unknown-agent" });
    return mcp.server.projectCallToolResult({ content: [], structuredContent: { operationId: "x" } }, undefined);
  });
  return mcp;
}
const legacy = legacyStatelessFallback(factory);
const server = http.createServer(async (req, res) => {
  const chunks = []; for await (const c of req) chunks.push(c);
  const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers: req.headers, body: req.method === "POST" ? Buffer.concat(chunks) : undefined });
  const response = await legacy(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = new URL(`http://127.0.0.1:${server.address().port}/mcp`);
const c = new Client({ name: "c", version: "0" }, { versionNegotiation: { mode: "auto" } });
await c.connect(new StreamableHTTPClientTransport(url));
console.log("era", c.getProtocolEra(), c.getNegotiatedProtocolVersion());
console.log(await c.callTool({ name: "send_message", arguments: { to: "a", text: "hi" }, _meta: { "org.social-harness/send": { failureDelivery: "inbound" } } }));
try { await c.callTool({ name: "send_message", arguments: { to: "a", text: "refuse" } }); } catch (e) { console.log(e.constructor.name, e.code, e.data); }
await c.close(); server.closeAllConnections(); server.close();

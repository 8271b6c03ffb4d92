import http from "node:http";
import * as z from "zod";
import { McpServer, ProtocolError, createMcpHandler, requireBearerAuth } from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const TOKEN = "secret";
function factory() {
  const mcp = new McpServer({ name: "fake", version: "0" });
  mcp.registerTool("send_message", { description: "send", inputSchema: z.strictObject({ to: z.string(), text: z.string() }) }, async () => ({ content: [] }));
  mcp.server.setRequestHandler("tools/call", async (request, ctx) => {
    console.log("server got", JSON.stringify(request.params), "meta", JSON.stringify(ctx.mcpReq._meta));
    const text = request.params.arguments?.text;
    if (text === "refuse") throw new ProtocolError(-32030, "refused", { reason: "unknown-agent", detail: "no bob" });
    if (text === "slow") await new Promise((r) => setTimeout(r, 2000));
    return mcp.server.projectCallToolResult({ content: [{ type: "text", text: "{}" }], structuredContent: { operationId: "col_x" } }, undefined);
  });
  return mcp;
}
const handler = createMcpHandler(factory, { legacy: "stateless" });
const node = toNodeHandler(handler);
const gate = requireBearerAuth({ verifier: { verifyAccessToken: async (t) => { if (t !== TOKEN) throw new Error("bad"); return { token: t, clientId: "rt", scopes: [], expiresAt: Math.floor(Date.now()/1000) + 3600 }; } } });
const server = http.createServer(async (req, res) => {
  const h = req.headers.authorization;
  if (h !== `Bearer ${TOKEN}`) { res.writeHead(401, { "content-type": "application/json", "www-authenticate": "Bearer" }); res.end('{"error":"invalid_token"}'); return; }
  req.auth = { token: TOKEN, clientId: "rt", scopes: [], expiresAt: Math.floor(Date.now()/1000) + 3600 };
  await node(req, res);
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = new URL(`http://127.0.0.1:${server.address().port}/mcp`);
async function mk(token) {
  const c = new Client({ name: "c", version: "0" }, { versionNegotiation: { mode: "auto" } });
  await c.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return c;
}
const show = (e) => console.log("ERR", e?.constructor?.name, e?.code, e?.message, JSON.stringify(e?.data), e?.cause?.code, e?.cause?.message);
try { await mk("nope"); } catch (e) { show(e); }
const c = await mk(TOKEN);
console.log("era", c.getProtocolEra());
console.log(await c.callTool({ name: "send_message", arguments: { to: "agent:bob", text: "hi" }, _meta: { "org.social-harness/send": { failureDelivery: "inbound" } } }));
try { await c.callTool({ name: "send_message", arguments: { to: "agent:bob", text: "refuse" } }); } catch (e) { show(e); }
try { await c.callTool({ name: "send_message", arguments: { to: "agent:bob", text: "slow" } }, { timeout: 300 }); } catch (e) { show(e); }
server.closeAllConnections(); await new Promise((r) => server.close(r)); await new Promise((r)=>setTimeout(r,50));
try { await c.callTool({ name: "send_message", arguments: { to: "agent:bob", text: "hi" } }); } catch (e) { show(e); let x=e; while(x){console.log("chain", x.constructor?.name, x.code, x.message); x=x.cause ?? (x.data && x.data.cause);} }
await c.close();
try { await mk(TOKEN); } catch (e) { show(e); let x=e; while(x){console.log("chain", x.constructor?.name, x.code, x.message); x=x.cause ?? (x.data && x.data.cause);} }
process.exit(0);

/**
 * Principals at a real daemon (issue 13, SPEC §12): the runtime token never reaches the owner
 * API, tokens travel only in the Authorization header (never a query string, a cookie or another
 * header), and no endpoint answers with a token. A missing or wrong token at /mcp and the owner
 * token on send_message are in test/conformance/protocol.test.ts ("bearer principals").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, callTool } from "../harness/mcp.js";
import { Network } from "../harness/network.js";
import { ownerClient } from "../harness/owner.js";
import { modernEnvelope, MODERN_VERSION, postMcp } from "../harness/raw-mcp.js";

describe("principals", () => {
  let net: Network;
  let base: string;
  let runtime: string;
  let owner: string;

  beforeAll(async () => {
    net = await Network.start(["alice", "bob"]);
    const { daemon } = net.agent("alice");
    base = daemon.mcpUrl.replace(/\/mcp$/, "");
    runtime = daemon.runtimeToken;
    owner = daemon.ownerToken;
  });
  afterAll(() => net?.close());

  const trpc = (path: string, init: RequestInit = {}) => fetch(`${base}/trpc/${path}`, init);

  it("refuses the runtime token, no token and a wrong one on every owner API procedure", async () => {
    for (const authorization of [`Bearer ${runtime}`, undefined, "Bearer sh_wrong", `Bearer ${owner}x`]) {
      const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
      for (const path of ["status", "inbox.list", "history.conversations", "trust.list", "status,trust.list?batch=1"]) {
        const response = await trpc(path, { headers });
        expect([path, response.status]).toEqual([path, 401]);
      }
      const mutation = await trpc("trust.add", {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ name: "mallory" }),
      });
      expect(mutation.status).toBe(401);
    }
    const client = ownerClient(net.agent("alice").daemon, runtime);
    await expect(client.status.query()).rejects.toMatchObject({ data: { code: "UNAUTHORIZED" } });
    expect((await ownerClient(net.agent("alice").daemon).trust.list.query()).trusted).toEqual([]);
  });

  it("never takes a token from a query string, a cookie or another header", async () => {
    const discover = { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: modernEnvelope() } };
    const modern = { "mcp-protocol-version": MODERN_VERSION, "mcp-method": "server/discover" };
    for (const token of [runtime, owner]) {
      for (const query of [`token=${token}`, `access_token=${token}`, `authorization=Bearer%20${token}`]) {
        expect((await postMcp(`${base}/mcp?${query}`, discover, { authorization: undefined, ...modern })).status).toBe(
          401,
        );
        expect((await trpc(`status?${query}`)).status).toBe(401);
      }
      const elsewhere: Record<string, string>[] = [
        { cookie: `token=${token}` },
        { "x-api-key": token },
        { "proxy-authorization": `Bearer ${token}` },
        { authorization: `Token ${token}` },
        { authorization: `Bearer ${token} ${token}` },
      ];
      for (const headers of elsewhere) {
        expect(
          (await postMcp(`${base}/mcp`, discover, { authorization: undefined, ...modern, ...headers })).status,
        ).toBe(401);
        expect((await trpc("status", { headers })).status).toBe(401);
      }
    }
  });

  it("answers with the tokens nowhere: not in health, status, tool results or refusals", async () => {
    const bodies = [
      await (await fetch(`${base}/healthz`)).text(),
      await (await trpc("status", { headers: { authorization: `Bearer ${owner}` } })).text(),
      await (await trpc("status", { headers: { authorization: `Bearer ${runtime}` } })).text(),
      await (await fetch(`${base}/mcp`, { method: "POST", headers: { authorization: `Bearer ${runtime}x` } })).text(),
    ];
    const mcp = await connect(`${base}/mcp`, owner);
    try {
      bodies.push(JSON.stringify(await callTool(mcp.client, "send_message", { to: "agent:bob", text: "x" })));
      bodies.push(JSON.stringify(await mcp.client.listTools()));
    } finally {
      await mcp.close();
    }
    for (const body of bodies) {
      expect(body.includes(runtime)).toBe(false);
      expect(body.includes(owner)).toBe(false);
    }
    const stderr = net.agent("alice").daemon.stderr();
    expect(stderr.includes(runtime) || stderr.includes(owner)).toBe(false);
  });
});

/**
 * Bad input at a real daemon's MCP endpoint (issue 13 abuse suite): bodies that are not JSON,
 * too large (sent at full speed, declared or chunked), nested deep, batched, or carrying lone
 * surrogates, and 500 requests at once. Each gets a clear typed answer, nothing is sent that
 * should not be, and the daemon stays alive, serving and delivering. Argument mistakes and
 * fuzzed arguments are in test/conformance/protocol.test.ts and fuzz.test.ts.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acknowledgeAll, textOf } from "../harness/inbox.js";
import { eventually } from "../harness/mcp.js";
import { Network, readAll } from "../harness/network.js";
import { modernEnvelope, MODERN_VERSION, postMcp } from "../harness/raw-mcp.js";

const MAX_BODY = 4 * 1024 * 1024;
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;
const REFUSED = -32030;

/** What a client sees of one POST: the status it read, or the socket error it got instead. */
type Seen = number | string;

/** POSTs `body` with node:http as fast as the socket takes it, declared or chunked. */
function rawPost(url: string, token: string, body: Buffer, chunked: boolean): Promise<Seen> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(chunked ? { "transfer-encoding": "chunked" } : { "content-length": body.byteLength }),
        },
      },
      (response) => {
        response.resume();
        response.once("end", () => resolve(response.statusCode ?? 0));
        response.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      },
    );
    request.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    if (chunked) {
      for (let at = 0; at < body.byteLength; at += 64 * 1024) request.write(body.subarray(at, at + 64 * 1024));
      request.end();
    } else {
      request.end(body);
    }
  });
}

async function fetchPost(url: string, token: string, body: Buffer): Promise<Seen> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
    });
    await response.arrayBuffer();
    return response.status;
  } catch (error) {
    return (error as { cause?: { code?: string } }).cause?.code ?? String(error);
  }
}

describe("bad input at the MCP endpoint", () => {
  let net: Network;
  let url: string;
  let token: string;

  beforeAll(async () => {
    net = await Network.start(["alice", "bob"]);
    url = net.agent("alice").daemon.mcpUrl;
    token = net.agent("alice").daemon.runtimeToken;
  });
  afterAll(() => net?.close());

  const headers = (method: string, name?: string) => ({
    authorization: `Bearer ${token}`,
    "mcp-protocol-version": MODERN_VERSION,
    "mcp-method": method,
    ...(name === undefined ? {} : { "mcp-name": name }),
  });
  const sendCall = (args: unknown, id = 1) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "send_message", arguments: args, _meta: modernEnvelope() },
  });
  const send = (body: unknown) => postMcp(url, body, headers("tools/call", "send_message"));

  it("answers a body that is not JSON, or not a JSON-RPC message, with 400 and a JSON-RPC error", async () => {
    for (const body of ['{"jsonrpc":"2.0","id":1,"method":', "", "{}}", "\u0000", "nul"]) {
      const answer = await send(body);
      expect(answer.status).toBe(400);
      expect(answer.response?.error.code).toBe(PARSE_ERROR);
    }
    for (const body of ["42", '"text"', "null", '{"jsonrpc":"1.0","id":1,"method":"tools/call"}']) {
      const answer = await send(body);
      expect(answer.status).toBe(400);
      expect(answer.response?.error.code).toBe(INVALID_REQUEST);
    }
  });

  it("answers a 20 MB body sent at full speed with 413 every time, never a reset", async () => {
    const body = Buffer.alloc(20 * 1024 * 1024, 0x20);
    const seen: Seen[] = [];
    for (let i = 0; i < 25; i++) {
      seen.push(await rawPost(url, token, body, false));
      seen.push(await fetchPost(url, token, body));
    }
    // A chunked upload declares no length; the endpoint counts it, stops reading past the limit
    // without destroying the request, answers 413 and drains the rest. (Destroying it reset
    // about one connection in seventy on a loaded machine: EPIPE at the client.)
    for (let i = 0; i < 40; i++) seen.push(await rawPost(url, token, body, true));
    expect(seen.filter((status) => status !== 413)).toEqual([]);
  });

  it("answers a body one byte over the limit with the JSON-RPC 413 body, and one at the limit as JSON", async () => {
    const over = await postMcp(url, " ".repeat(MAX_BODY + 1), headers("tools/call", "send_message"));
    expect(over.status).toBe(413);
    expect(over.response?.error).toMatchObject({ code: -32000, message: expect.stringContaining("Payload Too Large") });
    const text = "y".repeat(MAX_BODY - JSON.stringify(sendCall({ to: "agent:bob", text: "" })).length);
    const atLimit = await send(JSON.stringify(sendCall({ to: "agent:bob", text })));
    expect(atLimit.status).toBe(200);
    // Four MiB of text is more than a record holds (1 MiB), so the send is refused, typed.
    expect(atLimit.response?.error).toMatchObject({ code: REFUSED, data: { reason: "content-invalid" } });
  });

  it("refuses arguments nested 100,000 deep as InvalidParams, and options nested as deep likewise", async () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const envelope = JSON.stringify(modernEnvelope());
    const inArguments = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"send_message","arguments":{"to":"agent:bob","text":"x","z":${deep}},"_meta":${envelope}}}`;
    expect((await send(inArguments)).response?.error.code).toBe(INVALID_PARAMS);
    const inText = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"send_message","arguments":{"to":"agent:bob","text":${deep}},"_meta":${envelope}}}`;
    expect((await send(inText)).response?.error.code).toBe(INVALID_PARAMS);
    const options = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"send_message","arguments":{"to":"agent:bob","text":"x"},"_meta":{${envelope.slice(1, -1)},"org.social-harness/send":${deep}}}}`;
    expect((await send(options)).response?.error.code).toBe(INVALID_PARAMS);
    expect(await readAll(net.agent("bob"))).toEqual([]);
  });

  it("refuses JSON-RPC batches on the 2026-07-28 era, sending nothing, and serves a legacy batch of reads", async () => {
    const batch = await send([
      sendCall({ to: "agent:bob", text: "b1" }, 1),
      sendCall({ to: "agent:bob", text: "b2" }, 2),
    ]);
    expect(batch.status).toBe(400);
    expect(batch.response?.error.code).toBe(INVALID_REQUEST);
    expect((await send([])).response?.error.code).toBe(INVALID_REQUEST);
    const legacy = await postMcp(
      url,
      [
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
      ],
      { authorization: `Bearer ${token}` },
    );
    expect(legacy.status).toBe(200);
    expect(legacy.messages.map((m) => m.id).sort()).toEqual([1, 2]);
    expect(await readAll(net.agent("bob"))).toEqual([]);
  });

  it("refuses lone surrogates in the text as content-invalid and in the address as invalid-address", async () => {
    // JSON.stringify escapes a lone surrogate as \ud800, so the body is valid JSON carrying one.
    const inText = await send(sendCall({ to: "agent:bob", text: "broken \ud800 text" }));
    expect(inText.response?.error).toMatchObject({ code: REFUSED, data: { reason: "content-invalid" } });
    const inAddress = await send(sendCall({ to: "agent:b\udc00b", text: "x" }));
    expect(inAddress.response?.error).toMatchObject({ code: REFUSED, data: { reason: "invalid-address" } });
    const paired = await send(sendCall({ to: "agent:bob", text: "paired \ud83d\ude00" }));
    expect(paired.response?.result?.structuredContent).toEqual({});
    const [delivered] = await eventually(async () => {
      const items = await readAll(net.agent("bob"));
      return items.length > 0 ? items : undefined;
    });
    expect(textOf(delivered!)).toBe("paired \u{1f600}");
    await acknowledgeAll(net.agent("bob"));
  });

  it("answers 500 concurrent sends, each exactly once, and delivers every one", async () => {
    const answers = await Promise.all(
      Array.from({ length: 500 }, (_, i) => send(sendCall({ to: "agent:bob", text: `c${i}` }, i + 1))),
    );
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 500 }, () => 200));
    expect(answers.filter((a) => a.response?.result?.structuredContent === undefined)).toEqual([]);
    const texts = await eventually(async () => {
      const items = await readAll(net.agent("bob"));
      return items.length >= 500 ? items.map(textOf) : undefined;
    }, 60_000);
    expect(texts.sort()).toEqual(Array.from({ length: 500 }, (_, i) => `c${i}`).sort());
    await acknowledgeAll(net.agent("bob"));
  });

  it("stays alive, serves and logs no failure after all of it", async () => {
    const { daemon } = net.agent("alice");
    expect(daemon.proc.child.exitCode).toBeNull();
    expect(await (await fetch(new URL("/healthz", url))).json()).toMatchObject({ ok: true, link: "ready" });
    const failures = daemon
      .stderr()
      .split("\n")
      .filter((line) => /"level":(50|60)/.test(line));
    expect(failures).toEqual([]);
  });
});

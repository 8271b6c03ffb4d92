import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { once } from "node:events";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { createMcpEndpoint } from "./mcp-endpoint.js";
import { ClientGone } from "./node-exchange.js";
import { defineTool } from "./tool.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  if (server !== undefined) await new Promise<void>((resolve) => server!.close(() => resolve()));
  server = undefined;
});

async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  server = createServer(handle);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

/** A POST whose client goes away, before any answer, once `ready` (the server is waiting on it) resolves. */
function postThenLeave(
  port: number,
  ready: Promise<unknown>,
  path = "/",
  headers: Record<string, string> = {},
  body = "{}",
): void {
  const req = request({ host: "127.0.0.1", port, path, method: "POST", headers });
  req.on("error", () => undefined);
  req.end(body);
  void ready.then(() => req.destroy());
}

/** A promise and the function that resolves it. */
function signalled(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("ClientGone: the abort of a request whose client went away, made on first use", () => {
  it("aborts a signal read before the client leaves", async () => {
    const listening = signalled();
    const aborted = new Promise<boolean>((resolve) => {
      void serve((_req, res) => {
        const signal = new ClientGone(res).signal;
        signal.addEventListener("abort", () => resolve(signal.aborted));
        listening.resolve();
      }).then((port) => postThenLeave(port, listening.promise));
    });
    expect(await aborted).toBe(true);
  });

  it("gives a signal read after the client left already aborted", async () => {
    const watching = signalled();
    const aborted = new Promise<boolean>((resolve) => {
      void serve((_req, res) => {
        const gone = new ClientGone(res);
        res.on("close", () => setImmediate(() => resolve(gone.signal.aborted)));
        watching.resolve();
      }).then((port) => postThenLeave(port, watching.promise));
    });
    expect(await aborted).toBe(true);
  });

  it("never aborts once the answer was written", async () => {
    let gone: ClientGone | undefined;
    const closed = new Promise<void>((resolve) => {
      void serve((req, res) => {
        gone = new ClientGone(res);
        req.resume();
        req.on("end", () => res.end("{}"));
        res.on("close", () => resolve());
      }).then((port) => fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" }).then((r) => r.text()));
    });
    await closed;
    expect(gone!.signal.aborted).toBe(false);
  });

  it("reaches a tool on the direct path that reads ctx.signal, when its client leaves", async () => {
    const toolRunning = signalled();
    const toolSawAbort = signalled();
    const endpoint = createMcpEndpoint({
      credentials: { runtimeToken: "runtime-secret", ownerToken: "owner-secret" } as never,
      tools: [
        defineTool({
          name: "wait",
          title: "Wait",
          description: "waits until the client goes away",
          input: z.strictObject({}),
          output: z.strictObject({}),
          principals: ["runtime"],
          run: (_args, ctx) =>
            new Promise((resolve) => {
              ctx.signal.addEventListener("abort", () => {
                toolSawAbort.resolve();
                resolve({});
              });
              toolRunning.resolve();
            }),
        }),
      ],
      instructions: "test",
      log: pino({ level: "silent" }),
      direct: true,
    });
    const port = await serve((req, res) => void endpoint.handle(req, res));
    postThenLeave(
      port,
      toolRunning.promise,
      "/mcp",
      {
        authorization: "Bearer runtime-secret",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "wait",
      },
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "wait",
          arguments: {},
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    );
    await toolSawAbort.promise;
  });
});

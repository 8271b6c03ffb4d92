import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.mock("server-only", () => ({}));
const { forwardToDaemon } = await import("./daemon-forward");

const OWNER_TOKEN = "owner-token-that-must-stay-on-the-server";

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: string;
}

describe("forwardToDaemon", () => {
  let server: Server;
  let base: string;
  let dir: string;
  let tokenFile: string;
  const seen: Seen[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "sh-console-forward-"));
    tokenFile = path.join(dir, "owner.token");
    writeFileSync(tokenFile, `${OWNER_TOKEN}\n`);
    server = createServer((req: IncomingMessage, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        seen.push({
          method: req.method ?? "",
          url: req.url ?? "",
          authorization: req.headers.authorization,
          contentType: req.headers["content-type"],
          body,
        });
        if (req.headers.authorization !== `Bearer ${OWNER_TOKEN}`) {
          res.writeHead(401, { "content-type": "application/json" }).end('{"error":{"message":"no"}}');
          return;
        }
        res.writeHead(req.method === "POST" ? 200 : 207, { "content-type": "application/json" });
        res.end(JSON.stringify({ echoed: req.url }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const daemon = () => ({ name: "bob", url: base, ownerTokenFile: tokenFile });
  const incoming = (rest: string, init?: RequestInit) =>
    new Request(`http://127.0.0.1:3000/api/daemons/bob/trpc/${rest}`, init);

  it("forwards a query with the owner token, keeping path and query string", async () => {
    const search = "?batch=1&input=%7B%220%22%3A%7B%7D%7D";
    const response = await forwardToDaemon(incoming(`status,inbox.list${search}`), daemon(), "status,inbox.list");
    expect(response.status).toBe(207);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({ echoed: `/trpc/status,inbox.list${search}` });
    expect(seen.at(-1)).toMatchObject({ method: "GET", authorization: `Bearer ${OWNER_TOKEN}` });
  });

  it("forwards a mutation's body and content type", async () => {
    const body = JSON.stringify({ 0: { deliveryToken: "dlv_x" } });
    const request = incoming("inbox.discard?batch=1", {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    });
    const response = await forwardToDaemon(request, daemon(), "inbox.discard");
    expect(response.status).toBe(200);
    expect(seen.at(-1)).toEqual({
      method: "POST",
      url: "/trpc/inbox.discard?batch=1",
      authorization: `Bearer ${OWNER_TOKEN}`,
      contentType: "application/json",
      body,
    });
  });

  it("turns the daemon's refusal of the token into BAD_GATEWAY without revealing the token", async () => {
    writeFileSync(tokenFile, "a-wrong-token");
    try {
      const response = await forwardToDaemon(incoming("status"), daemon(), "status");
      expect(response.status).toBe(502);
      const text = await response.text();
      expect(JSON.parse(text)).toMatchObject({ error: { data: { code: "BAD_GATEWAY", httpStatus: 502 } } });
      expect(text).not.toContain("a-wrong-token");
    } finally {
      writeFileSync(tokenFile, OWNER_TOKEN);
    }
  });

  it("answers BAD_GATEWAY, once per batched procedure, when the token file cannot be read", async () => {
    const missing = { ...daemon(), ownerTokenFile: path.join(dir, "missing.token") };
    const response = await forwardToDaemon(incoming("status,inbox.list?batch=1"), missing, "status,inbox.list");
    expect(response.status).toBe(502);
    const body = (await response.json()) as unknown[];
    expect(body).toHaveLength(2);
    expect(body[0]).toMatchObject({ error: { code: -32603, data: { code: "BAD_GATEWAY" } } });
  });

  it("answers BAD_GATEWAY when the daemon is unreachable", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const response = await forwardToDaemon(
      incoming("status"),
      { ...daemon(), url: `http://127.0.0.1:${port}` },
      "status",
    );
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: { message: 'daemon "bob" is unreachable' } });
  });

  it("refuses procedure paths that could leave /trpc", async () => {
    const before = seen.length;
    for (const procedures of ["../mcp", "status/../../healthz", "", "status,", "a b"]) {
      const response = await forwardToDaemon(incoming("x"), daemon(), procedures);
      expect(response.status).toBe(404);
    }
    expect(seen.length).toBe(before);
  });
});

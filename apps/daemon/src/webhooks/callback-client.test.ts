import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../test/harness/mcp.js";
import { WebhookReceiver } from "../../test/webhooks/receiver.js";
import { createTestCa, type TestCa } from "../../test/webhooks/tls.js";
import { CallbackClient, type Resolver } from "./callback-client.js";

const body = Buffer.from('{"hello":"world"}');
const post = (client: CallbackClient, url: string, extra: { timeoutMs?: number; readBodyBytes?: number } = {}) =>
  client.post({ url, headers: { "content-type": "application/json" }, body, timeoutMs: 2_000, ...extra });

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("CallbackClient", () => {
  let ca: TestCa;
  let plain: WebhookReceiver;
  let other: WebhookReceiver;
  let untrusted: WebhookReceiver;
  const local = new CallbackClient({ allowLocal: true });
  const strict = new CallbackClient({ allowLocal: false });

  beforeAll(async () => {
    ca = createTestCa();
    plain = await WebhookReceiver.start();
    other = await WebhookReceiver.start();
    untrusted = await WebhookReceiver.start({ tls: ca, untrusted: true });
  });
  afterAll(async () => {
    await Promise.all([plain.close(), other.close(), untrusted.close()]);
    ca.remove();
  });

  it("posts the exact bytes and returns the status", async () => {
    plain.reset();
    plain.respond = () => ({ status: 202 });
    expect(await post(local, plain.url("/in?key=1", "127.0.0.1"))).toEqual({ kind: "response", status: 202 });
    expect(plain.requests[0]).toMatchObject({ path: "/in?key=1", raw: body });
    expect(plain.requests[0]!.headers["content-length"]).toBe(String(body.length));
  });

  it("refuses a literal loopback address unless local callbacks are allowed, without connecting", async () => {
    plain.reset();
    expect(await post(strict, `https://127.0.0.1:${plain.port}/`)).toMatchObject({
      kind: "failure",
      category: "connection_refused",
      detail: "refused loopback",
    });
    expect(await post(strict, `https://[::1]:${plain.port}/`)).toMatchObject({ detail: "refused loopback" });
    expect(await post(strict, plain.url("/", "127.0.0.1"))).toMatchObject({ detail: "scheme not allowed" });
    expect(plain.requests).toHaveLength(0);
  });

  it("resolves names at dial time and refuses when no address is public", async () => {
    plain.reset();
    const resolved: string[] = [];
    const resolver: Resolver = (host) => {
      resolved.push(host);
      return Promise.resolve([
        { address: "127.0.0.1", family: 4 },
        { address: "10.1.2.3", family: 4 },
      ]);
    };
    const client = new CallbackClient({ allowLocal: false }, resolver);
    expect(await post(client, `http://hooks.test:${plain.port}/`)).toMatchObject({ kind: "failure" });
    expect(await post(client, `https://hooks.test:${plain.port}/`)).toMatchObject({
      kind: "failure",
      category: "connection_refused",
      detail: "ERR_CALLBACK_DESTINATION",
    });
    expect(resolved).toEqual(["hooks.test"]);
    expect(plain.requests).toHaveLength(0);
  });

  it("dials only a checked address while keeping the original Host header", async () => {
    plain.reset();
    const client = new CallbackClient({ allowLocal: true }, () =>
      Promise.resolve([
        { address: "169.254.169.254", family: 4 },
        { address: "127.0.0.1", family: 4 },
      ]),
    );
    expect(await post(client, `http://hooks.test:${plain.port}/pinned`)).toEqual({ kind: "response", status: 200 });
    expect(plain.requests[0]).toMatchObject({ path: "/pinned" });
    expect(plain.requests[0]!.headers.host).toBe(`hooks.test:${plain.port}`);
  });

  it("resolves again for every new connection, and reuses a kept one within its age", async () => {
    let calls = 0;
    const resolver: Resolver = () => {
      calls++;
      return Promise.resolve([{ address: "127.0.0.1", family: 4 }]);
    };
    const kept = new CallbackClient({ allowLocal: true }, resolver);
    plain.reset();
    plain.respond = () => ({ status: 200, body: "ok" });
    for (let i = 0; i < 3; i++)
      expect(await post(kept, `http://hooks.test:${plain.port}/`)).toMatchObject({ status: 200 });
    expect(plain.connections).toBe(1);
    expect(calls).toBe(1);
    kept.close();

    // A connection past its age is closed instead of kept: every attempt dials (and resolves) again.
    const aged = new CallbackClient({ allowLocal: true }, resolver, { maxAgeMs: 0 });
    calls = 0;
    plain.reset();
    for (let i = 0; i < 3; i++) await post(aged, `http://hooks.test:${plain.port}/`);
    expect(calls).toBe(3);
    expect(plain.connections).toBe(3);
    aged.close();
  });

  it("sends once more on a fresh connection when a kept one is reset, and only once", async () => {
    const client = new CallbackClient({ allowLocal: true });
    plain.reset();
    let resets = 1;
    plain.respond = () => (plain.requests.length > 1 && resets-- > 0 ? { reset: true } : { status: 204 });
    expect(await post(client, plain.url("/", "127.0.0.1"))).toEqual({ kind: "response", status: 204 });
    expect(await post(client, plain.url("/", "127.0.0.1"))).toEqual({ kind: "response", status: 204 });
    expect(plain.requests).toHaveLength(3);
    expect(plain.connections).toBe(2);

    // A reset on the fresh connection too is a failed attempt, not a loop.
    plain.respond = () => ({ reset: true });
    expect(await post(client, plain.url("/", "127.0.0.1"))).toMatchObject({
      kind: "failure",
      category: "connection_refused",
    });
    expect(plain.requests).toHaveLength(5);
    client.close();
  });

  it("returns a redirect as a response and never follows it", async () => {
    plain.reset();
    other.reset();
    plain.respond = () => ({ status: 307, headers: { location: other.url("/elsewhere", "127.0.0.1") } });
    expect(await post(local, plain.url("/", "127.0.0.1"))).toEqual({ kind: "response", status: 307 });
    await new Promise((r) => setTimeout(r, 50));
    expect(other.requests).toHaveLength(0);
  });

  it("classifies a refused connection, a deadline and a TLS failure", async () => {
    expect(await post(local, `http://127.0.0.1:${await closedPort()}/`)).toMatchObject({
      kind: "failure",
      category: "connection_refused",
    });
    plain.respond = () => ({ hang: true });
    const started = Date.now();
    expect(await post(local, plain.url("/", "127.0.0.1"), { timeoutMs: 300 })).toMatchObject({
      kind: "failure",
      category: "timeout",
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await post(local, untrusted.url("/", "127.0.0.1"))).toMatchObject({
      kind: "failure",
      category: "tls_error",
    });
    expect(await post(local, untrusted.url("/", "localhost"))).toMatchObject({
      kind: "failure",
      category: "tls_error",
    });
    // Plain HTTP spoken to an https:// URL is a TLS failure too.
    plain.respond = () => ({ status: 200 });
    expect(await post(local, `https://127.0.0.1:${plain.port}/`)).toMatchObject({ category: "tls_error" });
  });

  it("reads a bounded body, and times out on one that trickles", async () => {
    plain.respond = () => ({ status: 200, body: '{"challenge":"abc"}' });
    const read = await post(local, plain.url("/", "127.0.0.1"), { readBodyBytes: 1024 });
    expect(read).toMatchObject({ kind: "response", status: 200 });
    expect(read.kind === "response" && read.body?.toString()).toBe('{"challenge":"abc"}');
    plain.respond = () => ({ status: 200, body: '{"challenge":"abc"}', trickleMs: 100 });
    expect(await post(local, plain.url("/", "127.0.0.1"), { readBodyBytes: 1024, timeoutMs: 400 })).toMatchObject({
      kind: "failure",
      category: "timeout",
    });
  });

  it("settles on the status line, keeps a drained connection, and closes one whose body still trickles at the deadline", async () => {
    const client = new CallbackClient({ allowLocal: true });
    plain.reset();
    plain.respond = () => ({ status: 200, body: "ok" });
    expect(await post(client, plain.url("/", "127.0.0.1"), { timeoutMs: 300 })).toEqual({
      kind: "response",
      status: 200,
    });
    // A body of 19 bytes a tenth of a second apart: the status settles the attempt, the deadline
    // (300 ms) closes the connection long before the body ends.
    plain.respond = () => ({ status: 200, body: '{"challenge":"abc"}', trickleMs: 100 });
    expect(await post(client, plain.url("/", "127.0.0.1"), { timeoutMs: 300 })).toEqual({
      kind: "response",
      status: 200,
    });
    expect(plain.connections).toBe(1);
    await eventually(async () => (plain.closedConnections === 1 ? true : undefined), 1_500, "the drain's deadline");
    client.close();
  });

  it("reports an aborted attempt as cancelled", async () => {
    plain.respond = () => ({ hang: true });
    const controller = new AbortController();
    const pending = local.post({
      url: plain.url("/", "127.0.0.1"),
      headers: {},
      body,
      timeoutMs: 5_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    expect(await pending).toEqual({ kind: "cancelled" });
  });
});

/**
 * The console under abuse (issue 13): malformed percent-encoding in a path, forged and expired
 * session cookies, cross-site state changes and path traversal, against a real `next start`
 * console forwarding to real daemons. A used login link is refused by inbox.spec.ts ("accepts
 * the login link once") and session forgery is unit-tested in src/server/session.test.ts.
 */
import { createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import { expect, test } from "./network.js";

const SESSION_COOKIE = "sh_console_session";

/** A session value in the console's format, signed with `secret`, expiring at `expiresAt`. */
function forgeSession(secret: string, expiresAt: number): string {
  const payload = `${expiresAt}.${randomBytes(16).toString("base64url")}`;
  const mac = createHmac("sha256", secret)
    .update("social-harness/console-session/v1\0")
    .update(payload)
    .digest("base64url");
  return `${payload}.${mac}`;
}

/** Signs in through the login link and returns the session cookie's value. */
async function signIn(loginUrl: string): Promise<string> {
  const response = await fetch(loginUrl, { redirect: "manual" });
  const cookie = /sh_console_session=([^;]+)/.exec(response.headers.get("set-cookie") ?? "");
  if (cookie === null) throw new Error(`no session cookie from the login link (status ${response.status})`);
  return cookie[1]!;
}

/** A GET with the path exactly as written: no client-side normalisation of `..` or escapes. */
function rawGet(base: string, path: string, cookie: string): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: url.hostname, port: url.port, path, method: "GET", headers: { cookie: `${SESSION_COOKIE}=${cookie}` } },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.once("end", () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.once("error", reject);
    request.end();
  });
}

test("answers 400 to malformed percent-encoding in a path, with a valid session", async ({ consoleServer }) => {
  const session = await signIn(consoleServer.loginUrl);
  for (const path of [
    "/api/daemons/alice/trpc/%ff",
    "/api/daemons/%ff/trpc/status",
    "/api/daemons/alice/trpc/%e2%82",
  ]) {
    const answer = await rawGet(consoleServer.url, path, session);
    expect(answer.status, path).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { data: { code: "BAD_REQUEST", httpStatus: 400 } } });
  }
  for (const path of ["/d/%ff/inbox", "/d/alice/%ff", "/%c0%af"]) {
    const answer = await rawGet(consoleServer.url, path, session);
    expect(answer.status, path).toBe(400);
    expect(answer.body).toContain("not well-formed percent-encoded UTF-8");
  }
  // Without a session the same paths are refused as unauthenticated, as any other path is.
  expect((await rawGet(consoleServer.url, "/api/daemons/alice/trpc/%ff", "")).status).toBe(401);
  expect(consoleServer.output()).not.toMatch(/URIError|URI malformed/);
});

test("refuses forged, expired and foreign session cookies on pages and API calls", async ({ consoleServer }) => {
  const real = await signIn(consoleServer.loginUrl);
  const [expiry, nonce, mac] = real.split(".");
  const hour = 3_600_000;
  const forged = {
    "signed with another secret": forgeSession(randomBytes(32).toString("base64url"), Date.now() + hour),
    "correctly signed but expired": forgeSession(consoleServer.sessionSecret, Date.now() - 1_000),
    "with its expiry pushed back": `${Number(expiry) + hour}.${nonce}.${mac}`,
    "with another nonce": `${expiry}.${randomBytes(16).toString("base64url")}.${mac}`,
    "with a flipped signature character": `${expiry}.${nonce}.${mac!.slice(0, -2)}${mac!.at(-2) === "A" ? "B" : "A"}${mac!.at(-1)}`,
    truncated: real.slice(0, -1),
    extended: `${real}A`,
    empty: "",
  };
  for (const [what, value] of Object.entries(forged)) {
    const api = await rawGet(consoleServer.url, "/api/daemons/bob/trpc/status", value);
    expect(api.status, what).toBe(401);
    const page = await rawGet(consoleServer.url, "/d/bob/inbox", value);
    expect([page.status, what]).toEqual([307, what]);
  }
  // A session signed with the console's own secret is what the real login produced.
  const genuine = forgeSession(consoleServer.sessionSecret, Date.now() + hour);
  expect((await rawGet(consoleServer.url, "/api/daemons/bob/trpc/status", genuine)).status).toBe(200);
  expect((await rawGet(consoleServer.url, "/api/daemons/bob/trpc/status", real)).status).toBe(200);
});

test("refuses cross-site state changes and leaves the daemon unchanged", async ({ consoleServer }) => {
  const session = await signIn(consoleServer.loginUrl);
  const origin = new URL(consoleServer.url);
  const otherPort = `http://${origin.hostname}:${Number(origin.port) === 65535 ? 1 : Number(origin.port) + 1}`;
  const attempts: Record<string, Record<string, string>> = {
    "another site by Origin": { origin: "https://evil.example" },
    "another port on the same host": { origin: otherPort },
    "a cross-site fetch": { "sec-fetch-site": "cross-site", origin: "https://evil.example" },
    "a same-site fetch from a sibling origin": { "sec-fetch-site": "same-site" },
    "a null Origin (sandboxed frame)": { origin: "null" },
  };
  for (const [what, headers] of Object.entries(attempts)) {
    const response = await fetch(`${consoleServer.url}/api/daemons/dave/trpc/trust.add`, {
      method: "POST",
      headers: { cookie: `${SESSION_COOKIE}=${session}`, "content-type": "application/json", ...headers },
      body: JSON.stringify({ name: "mallory" }),
    });
    expect([response.status, what]).toEqual([403, what]);
    expect(await response.json()).toMatchObject({ error: { data: { code: "FORBIDDEN" } } });
  }
  const list = await fetch(`${consoleServer.url}/api/daemons/dave/trpc/trust.list`, {
    headers: { cookie: `${SESSION_COOKIE}=${session}` },
  });
  expect(((await list.json()) as { result: { data: { trusted: unknown[] } } }).result.data.trusted).toEqual([]);
});

test("never lets a path leave the daemon's owner API or the console's own files", async ({
  consoleServer,
  network,
}) => {
  const session = await signIn(consoleServer.loginUrl);
  const secrets = [network.alice.ownerToken, network.alice.runtimeToken, consoleServer.sessionSecret];
  const paths = [
    "/api/daemons/alice/trpc/..%2f..%2fhealthz",
    "/api/daemons/alice/trpc/..%2F..%2Fmcp",
    "/api/daemons/alice/trpc/status%2f..%2f..%2fhealthz",
    "/api/daemons/alice/trpc/%2e%2e/%2e%2e/healthz",
    "/api/daemons/alice/trpc/../../healthz",
    "/api/daemons/..%2falice/trpc/status",
    "/api/daemons/alice%2f..%2fbob/trpc/status",
    "/d/..%2f..%2f..%2fetc%2fpasswd/inbox",
    "/_next/static/..%2f..%2f..%2fpackage.json",
    "/_next/static/../../../package.json",
    "/_next/static/%2e%2e/%2e%2e/%2e%2e/.env",
    "/icon.svg/..%2f..%2fpackage.json",
  ];
  for (const path of paths) {
    const answer = await rawGet(consoleServer.url, path, session);
    expect(answer.status, path).not.toBe(200);
    expect(answer.status, path).toBeLessThan(500);
    // Neither the daemon's health line nor a file of the repository came back, nor any secret.
    expect(answer.body, path).not.toMatch(/"ok":true|"name":\s*"social-harness"|root:x:0:0/);
    for (const secret of secrets) expect(answer.body.includes(secret), path).toBe(false);
  }
});

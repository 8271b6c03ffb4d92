/**
 * Every SSRF address form a webhook callback could hide a local target behind (issue 13), at real
 * daemons with a real HTTPS receiver listening on loopback: nothing may reach it. Literal forms
 * are refused at subscribe (InvalidParams), names are resolved when dialled and refused as
 * connection_refused; with --unsafe-allow-local-callbacks only plain loopback and private ranges
 * open up. The range table itself is unit-tested in src/webhooks/callback-address.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Network } from "../harness/network.js";
import { WebhookReceiver } from "../webhooks/receiver.js";
import { createTestCa, type TestCa } from "../webhooks/tls.js";
import { revokeAll, subscribe, webhookArgs } from "../webhooks/webhooks.js";

/** Hosts that name a non-public address literally, each in the URL spelling that hides it. */
const LITERAL_FORMS: [string, string][] = [
  ["loopback", "127.0.0.1"],
  ["loopback, another address of 127/8", "127.45.6.7"],
  ["loopback, decimal", "2130706433"],
  ["loopback, octal", "0177.0.0.1"],
  ["loopback, hexadecimal", "0x7f000001"],
  ["loopback, dotted hexadecimal", "0x7f.0x0.0x0.0x1"],
  ["loopback, short form", "127.1"],
  ["loopback, trailing dot", "127.0.0.1."],
  ["IPv6 loopback", "[::1]"],
  ["IPv6 loopback, long form", "[0:0:0:0:0:0:0:1]"],
  ["unspecified", "0.0.0.0"],
  ["unspecified, as one number", "0"],
  ["IPv6 unspecified", "[::]"],
  ["private 10/8", "10.0.0.7"],
  ["private 172.16/12", "172.16.5.4"],
  ["private 192.168/16", "192.168.1.1"],
  ["private, decimal", "167772167"],
  ["CGNAT 100.64/10", "100.64.0.1"],
  ["link-local, cloud metadata", "169.254.169.254"],
  ["link-local, decimal", "2852039166"],
  ["IPv6 link-local", "[fe80::1]"],
  ["IPv6 unique-local", "[fd00::1]"],
  ["IPv4-mapped loopback", "[::ffff:127.0.0.1]"],
  ["IPv4-mapped metadata", "[::ffff:169.254.169.254]"],
  ["IPv4-mapped, hexadecimal groups", "[::ffff:7f00:1]"],
  ["IPv4-compatible loopback", "[::127.0.0.1]"],
  ["NAT64 of loopback", "[64:ff9b::127.0.0.1]"],
  ["NAT64 local-use prefix", "[64:ff9b:1::a00:1]"],
  ["6to4 of loopback", "[2002:7f00:1::1]"],
  ["6to4 of metadata", "[2002:a9fe:a9fe::1]"],
  ["Teredo", "[2001:0:4136:e378:8000:63bf:3fff:fdd2]"],
  ["multicast", "224.0.0.1"],
  ["broadcast", "255.255.255.255"],
];

/** Names that resolve to loopback, checked only when the daemon dials. */
const NAME_FORMS = ["localhost", "LOCALHOST", "localhost."];

/** Refused even with --unsafe-allow-local-callbacks: nothing legitimate hides behind these. */
const ALWAYS_REFUSED = [
  "169.254.169.254",
  "2852039166",
  "[fe80::1]",
  "0.0.0.0",
  "[::]",
  "[::ffff:127.0.0.1]",
  "[::ffff:7f00:1]",
  "[::127.0.0.1]",
  "[64:ff9b::127.0.0.1]",
  "[2002:7f00:1::1]",
  "[2001:0:4136:e378:8000:63bf:3fff:fdd2]",
  "224.0.0.1",
];

describe("webhook callbacks to every hidden local address form", () => {
  let net: Network;
  let ca: TestCa;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    ca = createTestCa();
    receiver = await WebhookReceiver.start({ tls: ca });
    net = await Network.start([]);
    const env = { NODE_EXTRA_CA_CERTS: ca.caFile };
    await net.add("strict", { extraArgs: webhookArgs({ unsafe: false }), env });
    await net.add("local", { extraArgs: webhookArgs(), env });
  });
  afterAll(async () => {
    for (const name of ["strict", "local"]) await revokeAll(net.agent(name).daemon).catch(() => undefined);
    await net?.close();
    await receiver?.close();
    ca?.remove();
  });

  const url = (host: string) => `https://${host}:${receiver.port}/hook`;

  it.each(LITERAL_FORMS)("refuses %s (%s) at subscribe, connecting to nothing", async (_form, host) => {
    const outcome = await subscribe(net.agent("strict").mcp.client, url(host), receiver.secret());
    expect(outcome).toMatchObject({ ok: false, code: -32602, message: expect.stringContaining("publicly routable") });
    expect(receiver.requests).toEqual([]);
  });

  it.each(NAME_FORMS)("resolves %s when dialling and refuses it as connection_refused", async (host) => {
    const outcome = await subscribe(net.agent("strict").mcp.client, url(host), receiver.secret());
    expect(outcome).toMatchObject({ ok: false, code: -32015, data: { reason: "connection_refused" } });
    expect(receiver.requests).toEqual([]);
  });

  it("refuses a zone id and credentials in the URL", async () => {
    for (const bad of [`https://[fe80::1%25eth0]:${receiver.port}/`, `https://user:pass@127.0.0.1:${receiver.port}/`]) {
      expect(await subscribe(net.agent("strict").mcp.client, bad, receiver.secret())).toMatchObject({
        ok: false,
        code: -32602,
      });
    }
    expect(receiver.requests).toEqual([]);
  });

  it.each(ALWAYS_REFUSED)("refuses %s even with --unsafe-allow-local-callbacks", async (host) => {
    const outcome = await subscribe(net.agent("local").mcp.client, url(host), receiver.secret());
    expect(outcome).toMatchObject({ ok: false, code: -32602 });
    expect(receiver.requests).toEqual([]);
  });
});

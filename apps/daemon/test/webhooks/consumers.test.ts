/**
 * One consumer owns the inbox (seed 000): a webhook subscription is refused while a push stream is
 * open, events/stream is refused while a webhook registration is retained (also suspended and
 * after a restart), a second subscription key is refused until the first is revoked.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PushStream } from "../harness/events.js";
import { acknowledgeAll } from "../harness/inbox.js";
import { eventually } from "../harness/mcp.js";
import { Network } from "../harness/network.js";
import { ownerClient } from "../harness/owner.js";
import { accept, WebhookReceiver } from "./receiver.js";
import { createTestCa, type TestCa } from "./tls.js";
import { revokeAll, subscribe, subscribed } from "./webhooks.js";

describe("one consumer owns the inbox", () => {
  let net: Network;
  let ca: TestCa;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    ca = createTestCa();
    receiver = await WebhookReceiver.start({ tls: ca });
    net = await Network.start(["alice"]);
    // The default retry schedule and attempt timeout: only local callbacks are allowed here.
    await net.add("bob", { extraArgs: ["--unsafe-allow-local-callbacks"], env: { NODE_EXTRA_CA_CERTS: ca.caFile } });
  });
  afterEach(async () => {
    await revokeAll(net.agent("bob").daemon);
    await acknowledgeAll(net.agent("bob"));
    receiver.reset();
  });
  afterAll(async () => {
    await net?.close();
    await receiver?.close();
    ca?.remove();
  });

  async function refusedStream(): Promise<any> {
    const stream = new PushStream(net.agent("bob").mcp.client);
    const outcome = (await stream.done) as { ok: boolean; error?: any };
    expect(outcome.ok).toBe(false);
    return outcome.error;
  }

  it("refuses a subscription while a push stream is open, before any challenge is sent", async () => {
    const { client } = net.agent("bob").mcp;
    const stream = new PushStream(client);
    await stream.count(0);
    expect(await subscribe(client, receiver.url(), receiver.secret())).toMatchObject({
      ok: false,
      code: -32012,
      data: { owner: "push", reason: expect.stringContaining("push stream") },
    });
    expect(receiver.requests).toHaveLength(0);
    stream.close();
    await stream.done;
    await eventually(async () => ((await subscribe(client, receiver.url(), receiver.secret())).ok ? true : undefined));
  });

  it("refuses events/stream while a webhook owns the inbox, also after a restart, until revocation", async () => {
    const { id } = await subscribed(net.agent("bob").mcp.client, receiver.url(), receiver.secret());
    expect(await refusedStream()).toMatchObject({ code: -32012, data: { owner: "webhook" } });
    const bob = await net.restart("bob");
    expect(await refusedStream()).toMatchObject({ code: -32012, data: { owner: "webhook" } });
    await ownerClient(bob.daemon).subscriptions.revoke.mutate({ id });
    const stream = new PushStream(bob.mcp.client);
    await stream.count(0);
    stream.close();
    await stream.done;
  });

  it("keeps the inbox for a suspended registration", async () => {
    receiver.respond = (r) => (r.isChallenge ? accept(r) : { status: 410 });
    const { id } = await subscribed(net.agent("bob").mcp.client, receiver.url(), receiver.secret());
    await net.send("alice", "agent:bob", "gone");
    await eventually(async () => {
      const s = await ownerClient(net.agent("bob").daemon).subscriptions.status.query({ id });
      return s.state === "suspended" ? true : undefined;
    });
    expect(await refusedStream()).toMatchObject({ code: -32012, data: { owner: "webhook" } });
  });

  it("refuses another callback while a registration is retained, and accepts it after revocation", async () => {
    const { client } = net.agent("bob").mcp;
    const { id } = await subscribed(client, receiver.url("/first"), receiver.secret());
    expect(await subscribe(client, receiver.url("/second"), receiver.secret())).toMatchObject({
      ok: false,
      code: -32012,
      data: { owner: "webhook", reason: expect.stringContaining("revoked") },
    });
    expect(receiver.challenges()).toHaveLength(1);
    await ownerClient(net.agent("bob").daemon).subscriptions.revoke.mutate({ id });
    expect(await subscribe(client, receiver.url("/second"), receiver.secret())).toMatchObject({ ok: true });
  });
});

/**
 * Guidance on every surface (issue 10 item 6): read_inbox and read_event carry it beside the item,
 * a full webhook payload carries it inside the 256 KiB envelope, the push stream stays content-free,
 * and the peer's message never contains it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PushStream } from "../harness/events.js";
import { tool } from "../harness/mcp.js";
import { Network, waitFor } from "../harness/network.js";
import { WebhookReceiver } from "../webhooks/receiver.js";
import { createTestCa, type TestCa } from "../webhooks/tls.js";
import { subscribed, webhookArgs } from "../webhooks/webhooks.js";
import { setPolicy } from "./policies.js";

const EXPECT_REPLY = {
  mode: "enforce",
  middlewares: [
    {
      id: "house",
      kind: "rules",
      rules: [
        {
          id: "reply-to-alice",
          direction: "inbound",
          match: { from: ["agent:alice"] },
          decision: "allow",
          expectation: "required",
          instruction: "alice is waiting for your reply.",
        },
      ],
    },
  ],
};

describe("guidance on every surface", () => {
  let net: Network;
  let ca: TestCa;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    ca = createTestCa();
    receiver = await WebhookReceiver.start({ tls: ca });
    net = await Network.start(["alice", "bob"]);
    await net.add("carol", { extraArgs: webhookArgs(), env: { NODE_EXTRA_CA_CERTS: ca.caFile } });
    await setPolicy(net.agent("bob").daemon, EXPECT_REPLY);
    await setPolicy(net.agent("carol").daemon, EXPECT_REPLY);
  });
  afterAll(async () => {
    await net?.close();
    await receiver?.close();
    ca?.remove();
  });

  it("rides beside the item in read_inbox and read_event, and never in the push stream or the message", async () => {
    const stream = new PushStream(net.agent("bob").mcp.client);
    try {
      await net.send("alice", "agent:bob", "are you free at noon?");
      const [entry] = await waitFor(net.agent("bob"), (e) => e.item.kind === "multicast");
      expect(entry!.guidance).toMatchObject({
        instructions: [
          { ruleId: "reply-to-alice", expectation: "required", instruction: "alice is waiting for your reply." },
        ],
      });
      expect(JSON.stringify(entry!.item)).not.toContain("alice is waiting");
      const event = await tool(net.agent("bob").mcp.client, "read_event", {
        eventId: `evt_${entry!.deliveryToken.slice(4)}`,
      });
      expect(event).toEqual({ item: entry!.item, guidance: entry!.guidance });
      await stream.count(1);
      for (const notification of stream.of("event"))
        expect(Object.keys(notification.params.data as object)).toEqual(["pendingCount"]);
    } finally {
      stream.close();
      await stream.done;
    }
  });

  it("rides inside a full webhook payload", async () => {
    await subscribed(net.agent("carol").mcp.client, receiver.url(), receiver.secret());
    await net.send("alice", "agent:carol", "lunch?");
    const [delivery] = await receiver.waitForDeliveries(1);
    expect(delivery!.body.data).toMatchObject({
      kind: "item",
      item: { kind: "multicast", message: { sender: "agent:alice" } },
      guidance: { instructions: [{ ruleId: "reply-to-alice", expectation: "required" }] },
    });
  });
});

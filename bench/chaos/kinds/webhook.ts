/**
 * Direct messages to an agent whose host is a webhook receiver: the daemon owns the delivery (one
 * item in flight, signed, retried with the same event id) across its own crashes and full disks.
 * A delivery the receiver accepted counts as received; the same event id may come again only when
 * a crash or a full disk may have lost the receipt, never otherwise.
 */
import { createTestCa, type TestCa } from "../tls.js";
import type { TrafficKind } from "../traffic.js";
import { multicastKind } from "./multicast.js";
import { WebhookReceiver } from "./webhook-receiver.js";

const EVENT = "org.social-harness/inbox.item";

export function webhookKind(recipient = "dave"): TrafficKind {
  let ca: TestCa | undefined;
  let receiver: WebhookReceiver | undefined;
  const base = multicastKind({
    name: "webhook",
    weight: 2,
    agents: [],
    address: () => `agent:${recipient}`,
    recipients: () => [recipient],
  });
  return {
    ...base,
    async setup(dir) {
      ca = await createTestCa(dir);
    },
    agents: () => [
      {
        name: recipient,
        consumer: "webhook",
        // Loopback callbacks for the local receiver; short retries so a refused delivery comes back soon.
        args: [
          "--unsafe-allow-local-callbacks",
          ...["--webhook-retry-base-ms", "50", "--webhook-retry-cap-ms", "500", "--webhook-timeout-ms", "10000"],
        ],
        env: { NODE_EXTRA_CA_CERTS: ca!.caFile },
      },
    ],
    async prepare(ctx) {
      receiver = await WebhookReceiver.start(ca!, recipient, ctx);
      const subscribed = await ctx.host(recipient).request("events/subscribe", {
        name: EVENT,
        arguments: {},
        delivery: { mode: "webhook", url: receiver.url, secret: receiver.secret },
        cursor: null,
      });
      if (!subscribed.ok) throw new Error(`the webhook subscription failed: ${JSON.stringify(subscribed)}`);
    },
    async teardown() {
      await receiver?.close();
    },
  };
}

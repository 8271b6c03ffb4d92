/**
 * The owner console's webhook subscriptions against a real network: a host subscribes carol's
 * inbox to a local HTTPS receiver over MCP; the owner sees it active, watches it suspend while the
 * receiver fails (the daemons page warns meanwhile), resumes it (and the item lands), revokes it
 * (its lease line says it ended), and sees a terminal rejection offered only revocation. The page
 * never shows the callback URL or the secret.
 */
import { createHash } from "node:crypto";
import { connect, tool } from "../apps/daemon/test/harness/mcp.js";
import { accept, WebhookReceiver } from "../apps/daemon/test/webhooks/receiver.js";
import { subscribed } from "../apps/daemon/test/webhooks/webhooks.js";
import { expect, test } from "./network.js";

test("shows a webhook subscription, resumes it after a suspension, and revokes it", async ({
  page,
  consoleServer,
  network,
}) => {
  test.setTimeout(120_000);
  const receiver = await WebhookReceiver.start({ tls: network.webhookCa });
  const host = await connect(network.carol.mcpUrl, network.carol.runtimeToken);
  const alice = await connect(network.alice.mcpUrl, network.alice.runtimeToken);
  const leaks: string[] = [];
  try {
    const secret = receiver.secret();
    const path = "/hooks/carol?route=private-routing-key";
    receiver.respond = (r) => (r.isChallenge ? accept(r) : { status: 500 });
    const { id } = await subscribed(host.client, receiver.url(path), secret);
    const fingerprint = createHash("sha256").update(secret).digest("hex").slice(0, 12);
    page.on("response", async (response) => {
      if (!response.url().startsWith(consoleServer.url)) return;
      const body = await response.text().catch(() => "");
      if ([secret, secret.slice(6), "private-routing-key", `:${receiver.port}/`].some((s) => body.includes(s)))
        leaks.push(response.url());
    });

    await page.goto(consoleServer.loginUrl);
    await expect(page).toHaveURL(`${consoleServer.url}/`);
    await page.goto(`${consoleServer.url}/d/carol/inbox`);
    await page.getByRole("navigation", { name: "carol sections" }).getByRole("link", { name: "Subscriptions" }).click();
    await expect(page).toHaveURL(`${consoleServer.url}/d/carol/subscriptions`);
    await expect(page.getByRole("heading", { name: "Webhook subscriptions" })).toBeVisible();
    const card = page.locator(`[data-subscription-id="${id}"]`);
    await expect(card).toHaveAttribute("data-state", "active");
    await expect(card.getByTestId("subscription-state")).toHaveText("Active");
    await expect(card.getByTestId("subscription-fingerprint")).toHaveText(fingerprint);
    await expect(card.getByRole("button", { name: /^Resume/ })).toHaveCount(0);
    // An active lease shows when it expires, relative to now.
    await expect(card.getByTestId("subscription-lease")).toContainText("(in ");
    // The daemons page (another tab) says nothing about webhooks while they deliver.
    const daemons = await page.context().newPage();
    await daemons.goto(consoleServer.url);
    const carolCard = daemons.getByTestId("daemon-card-carol");
    await expect(carolCard.getByTestId("daemon-pending")).toBeVisible();
    await expect(carolCard.getByTestId("daemon-webhooks")).toHaveCount(0);
    await page.screenshot({ path: "test-results/screenshots/subscriptions-active.png", fullPage: true });

    // The receiver fails every delivery: after 100 attempts over carol's (shortened) window it suspends.
    expect(await tool(alice.client, "send_message", { to: "agent:carol", text: "for the webhook" })).toEqual({});
    await expect(card).toHaveAttribute("data-state", "suspended", { timeout: 60_000 });
    await expect(card.getByTestId("subscription-state")).toHaveText("Suspended");
    await expect(card.getByTestId("subscription-last-error")).toHaveText("HTTP 5xx");
    expect(
      Number(await card.getByTestId("subscription-attempts").locator("span").first().textContent()),
    ).toBeGreaterThanOrEqual(100);
    await expect(card.getByTestId("terminal-rejection")).toHaveCount(0);
    await page.screenshot({ path: "test-results/screenshots/subscriptions-suspended.png", fullPage: true });
    // The daemons page warns about the suspended webhook and links to the subscriptions.
    await expect(carolCard.getByTestId("daemon-webhooks")).toHaveText("Webhooks: 1 suspended. See subscriptions");
    await expect(daemons.getByTestId("daemon-card-bob").getByTestId("daemon-webhooks")).toHaveCount(0);
    await expect(carolCard.getByRole("link", { name: "See subscriptions" })).toHaveAttribute(
      "href",
      "/d/carol/subscriptions",
    );
    await daemons.screenshot({ path: "test-results/screenshots/daemons-webhook-warning.png", fullPage: true });

    // The owner fixes the receiver and resumes: the retained item lands.
    receiver.respond = accept;
    await card.getByRole("button", { name: /^Resume subscription/ }).click();
    await expect(card).toHaveAttribute("data-state", "active");
    await expect(card.getByTestId("subscription-delivered")).toHaveText("1");
    await expect(card.getByTestId("subscription-last-error")).toHaveText("None");
    await expect(carolCard.getByTestId("daemon-webhooks")).toHaveCount(0);
    await daemons.close();
    const landed = receiver.deliveries().at(-1)!;
    expect(landed.verifiedWith).toBe(secret);
    expect(landed.body.data.item.message.content[0].text).toBe("for the webhook");
    await page.screenshot({ path: "test-results/screenshots/subscriptions-resumed.png", fullPage: true });

    await card.getByRole("button", { name: /^Revoke subscription/ }).click();
    await card.getByRole("button", { name: /^Yes, revoke subscription/ }).click();
    await expect(card).toHaveAttribute("data-state", "revoked");
    await expect(card.getByTestId("subscription-state")).toHaveText("Revoked");
    await expect(card.getByRole("button")).toHaveCount(0);
    // A revoked subscription's lease ended with it: no expiry still to come ("in 24 hours").
    await expect(card.getByTestId("subscription-lease")).toHaveText("ended when it was revoked");
    await expect(card).not.toContainText(/\(in \d/);
    await page.screenshot({ path: "test-results/screenshots/subscriptions-revoked.png", fullPage: true });

    // Subscribing again after revocation is a new registration; a 410 makes it terminal.
    receiver.respond = (r) => (r.isChallenge ? accept(r) : { status: 410 });
    const again = await subscribed(host.client, receiver.url(path), secret);
    expect(again.id).toBe(id);
    await expect(card).toHaveAttribute("data-state", "active");
    expect(await tool(alice.client, "send_message", { to: "agent:carol", text: "rejected" })).toEqual({});
    await expect(card).toHaveAttribute("data-state", "suspended");
    await expect(card.getByTestId("terminal-rejection")).toContainText("HTTP 410");
    await expect(card.getByRole("button", { name: /^Resume/ })).toHaveCount(0);
    await page.screenshot({ path: "test-results/screenshots/subscriptions-terminal.png", fullPage: true });
    await card.getByRole("button", { name: /^Revoke subscription/ }).click();
    await card.getByRole("button", { name: /^Yes, revoke subscription/ }).click();
    await expect(card).toHaveAttribute("data-state", "revoked");
    await expect(card.getByTestId("terminal-rejection")).toHaveCount(0);

    // Revocation kept the rejected item for the inbox.
    const inbox = (await tool(host.client, "read_inbox", {})) as {
      items: { item: { message: { content: { text: string }[] } } }[];
    };
    expect(inbox.items.map((e) => e.item.message.content[0]!.text)).toEqual(["rejected"]);
    await expect(page.locator("body")).not.toContainText("private-routing-key");
    expect(leaks).toEqual([]);
  } finally {
    await host.close();
    await alice.close();
    await receiver.close();
  }
});

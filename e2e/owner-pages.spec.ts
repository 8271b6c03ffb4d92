/**
 * The owner console's Held, Trust and History pages against a real network: dave runs under the
 * allowlist policy, so alice's and carol's messages are held; the owner trusts alice from Held
 * (her item moves to the inbox, carol's stays held), refuses bad names on Trust, untrusts alice
 * (her next message is held again), and reads the direct conversations' certified records, with
 * their dispositions, in History, loading more than one page.
 */
import type { Page } from "@playwright/test";
import { connect, tool, type Connected } from "../apps/daemon/test/harness/mcp.js";
import { expect, test } from "./network.js";

const SHOTS = "test-results/screenshots";

async function send(from: Connected, to: string, text: string): Promise<void> {
  expect(await tool(from.client, "send_message", { to, text })).toEqual({});
}

function section(page: Page, label: string) {
  return page.getByRole("navigation", { name: "dave sections" }).getByRole("link", { name: label, exact: true });
}

test("holds untrusted senders, trusts and untrusts a sender, and shows the certified history", async ({
  page,
  consoleServer,
  network,
}) => {
  test.setTimeout(120_000);
  const alice = await connect(network.alice.mcpUrl, network.alice.runtimeToken);
  const carol = await connect(network.carol.mcpUrl, network.carol.runtimeToken);
  const dave = await connect(network.dave.mcpUrl, network.dave.runtimeToken);
  const trustCalls: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("/trpc/trust.add")) trustCalls.push(request.url());
  });
  try {
    await send(alice, "agent:dave", "hello dave, alice here");
    await send(carol, "agent:dave", "hello dave, carol here");

    await page.goto(consoleServer.loginUrl);
    await expect(page).toHaveURL(`${consoleServer.url}/`);
    await page.goto(`${consoleServer.url}/d/dave/inbox`);
    await expect(page.getByTestId("inbox-empty")).toBeVisible();

    // Held: both items, with sender, conversation, body and reason; the policy is allowlist.
    await section(page, "Held").click();
    await expect(page).toHaveURL(`${consoleServer.url}/d/dave/holds`);
    await expect(page.getByRole("heading", { name: "Held items" })).toBeVisible();
    await expect(page.getByTestId("trust-policy-name")).toHaveText("allowlist");
    const held = page.getByTestId("held-item");
    await expect(held).toHaveCount(2);
    await expect(page.getByTestId("held-count")).toHaveText("2");
    const aliceHeld = held.and(page.locator('[data-sender="alice"]'));
    const carolHeld = held.and(page.locator('[data-sender="carol"]'));
    await expect(aliceHeld.getByTestId("held-sender")).toHaveText("agent:alice");
    await expect(aliceHeld.getByTestId("held-conversation")).toHaveText("direct:alice,dave");
    await expect(aliceHeld.getByTestId("message-content")).toHaveText("hello dave, alice here");
    await expect(aliceHeld.getByTestId("held-reason")).toContainText(
      "alice is not on the trust list (policy: allowlist)",
    );
    await expect(carolHeld.getByTestId("held-conversation")).toHaveText("direct:carol,dave");
    await expect(carolHeld.getByTestId("message-content")).toHaveText("hello dave, carol here");
    await expect(carolHeld.getByTestId("held-reason")).toContainText("carol is not on the trust list");
    await page.screenshot({ path: `${SHOTS}/dave-held.png`, fullPage: true });

    // Trusting alice releases her item into the inbox; carol's stays held.
    await aliceHeld.getByRole("button", { name: "Trust alice" }).click();
    await expect(page.getByTestId("trust-released")).toContainText("Trusted alice: 1 held item released");
    await expect(aliceHeld).toHaveCount(0);
    await expect(held).toHaveCount(1);
    await expect(carolHeld).toHaveCount(1);
    await page.screenshot({ path: `${SHOTS}/dave-held-after-trust.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    // On a phone the card and its button fit the width: nothing scrolls sideways.
    await carolHeld.getByRole("button", { name: "Trust carol" }).scrollIntoViewIfNeeded();
    await expect(carolHeld.getByRole("button", { name: "Trust carol" })).toBeInViewport();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${SHOTS}/dave-held-narrow.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 720 });

    await section(page, "Inbox").click();
    const inboxItem = page.getByTestId("inbox-item");
    await expect(inboxItem).toHaveCount(1);
    await expect(inboxItem.getByTestId("item-sender")).toHaveText("agent:alice");
    await expect(inboxItem.getByTestId("message-content")).toHaveText("hello dave, alice here");
    // Trusted now, alice's next message is delivered; dave's reply is his own post.
    await send(alice, "agent:dave", "alice again, now trusted");
    await expect(inboxItem).toHaveCount(2);
    await expect(page.getByTestId("pending-count")).toHaveText("2");
    await page.screenshot({ path: `${SHOTS}/dave-inbox-released.png`, fullPage: true });
    await send(dave, "agent:alice", "hi alice, dave here");

    // Trust: alice is listed; bad names are refused here or by the daemon; untrusting her holds her again.
    await section(page, "Trust").click();
    await expect(page).toHaveURL(`${consoleServer.url}/d/dave/trust`);
    await expect(page.getByTestId("trust-policy-name")).toHaveText("allowlist");
    const trusted = page.getByTestId("trusted-agent");
    await expect(trusted).toHaveCount(1);
    await expect(trusted).toHaveAttribute("data-name", "alice");
    await expect(trusted).toContainText("agent:alice");
    await expect(trusted).toContainText("Trusted since");
    await page.screenshot({ path: `${SHOTS}/dave-trust.png`, fullPage: true });

    const nameField = page.getByRole("textbox", { name: "Trust an agent" });
    const formError = page.getByTestId("trust-form-error");
    const callsBefore = trustCalls.length;
    await nameField.fill("Al");
    await page.getByRole("button", { name: "Trust", exact: true }).click();
    await expect(formError).toHaveText("An agent name has 3 to 32 characters.");
    await nameField.fill("Alice");
    await page.getByRole("button", { name: "Trust", exact: true }).click();
    await expect(formError).toHaveText("An agent name uses only a-z, 0-9, _ and -.");
    expect(trustCalls.length).toBe(callsBefore);
    // Passes the console's check, but the daemon wants a letter or digit at each end.
    await nameField.fill("-erin-");
    await page.getByRole("button", { name: "Trust", exact: true }).click();
    await expect(formError).toHaveText("The daemon refused: name: must be an agent name (3-32 of a-z 0-9 _ -)");
    expect(trustCalls.length).toBe(callsBefore + 1);
    await expect(trusted).toHaveCount(1);
    await page.screenshot({ path: `${SHOTS}/dave-trust-refused.png`, fullPage: true });

    // A well-formed name nobody registered is trusted with a warning; typing the next name clears the result.
    await nameField.fill("nobody-here");
    await page.getByRole("button", { name: "Trust", exact: true }).click();
    await expect(page.getByTestId("trust-form-unregistered")).toContainText(
      "No agent named nobody-here is registered at the router yet",
    );
    await expect(page.getByTestId("trust-form-result")).toContainText("Trusted nobody-here");
    await nameField.fill("n");
    await expect(page.getByTestId("trust-form-result")).toHaveCount(0);
    await expect(page.getByTestId("trust-form-unregistered")).toHaveCount(0);
    await trusted.getByRole("button", { name: "Untrust nobody-here" }).click();
    await expect(trusted).toHaveCount(1);
    await nameField.fill("");

    await trusted.getByRole("button", { name: "Untrust alice" }).click();
    await expect(page.getByTestId("untrust-result")).toHaveText("Untrusted alice; its new items will be held.");
    await expect(trusted).toHaveCount(0);
    await expect(page.getByTestId("trust-empty")).toBeVisible();
    await page.screenshot({ path: `${SHOTS}/dave-trust-empty.png`, fullPage: true });

    await send(alice, "agent:dave", "alice once more, untrusted");
    await section(page, "Held").click();
    await expect(held).toHaveCount(2);
    await expect(aliceHeld.getByTestId("message-content")).toHaveText("alice once more, untrusted");
    await expect(carolHeld).toHaveCount(1);
    await page.screenshot({ path: `${SHOTS}/dave-held-again.png`, fullPage: true });

    // History: both direct conversations, and alice's records in order with their dispositions.
    await section(page, "History").click();
    await expect(page).toHaveURL(`${consoleServer.url}/d/dave/history`);
    await expect(page.getByTestId("history-note")).toContainText("grants no delivery");
    const conversations = page.getByTestId("history-conversation");
    await expect(conversations).toHaveCount(2);
    const withAlice = conversations.and(page.locator('[data-conversation="direct:alice,dave"]'));
    const withCarol = conversations.and(page.locator('[data-conversation="direct:carol,dave"]'));
    await expect(withAlice).toContainText("agent:alice, agent:dave");
    await expect(withAlice.getByTestId("conversation-records")).toHaveText("4");
    await expect(withCarol.getByTestId("conversation-records")).toHaveText("1");
    await withAlice.click();
    await expect(page).toHaveURL(`${consoleServer.url}/d/dave/history?conversation=direct%3Aalice%2Cdave`);
    await expect(withAlice).toHaveAttribute("aria-current", "true");
    const records = page.getByTestId("history-record");
    await expect(records).toHaveCount(4);
    await expect(records.getByTestId("record-seq")).toHaveText(["#1", "#2", "#3", "#4"]);
    await expect(records.getByTestId("record-author")).toHaveText([
      "agent:alice",
      "agent:alice",
      "agent:dave",
      "agent:alice",
    ]);
    await expect(records.getByTestId("message-content")).toHaveText([
      "hello dave, alice here",
      "alice again, now trusted",
      "hi alice, dave here",
      "alice once more, untrusted",
    ]);
    // A disposition says what became of a record: the item released by trusting alice was delivered.
    expect(await records.evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-disposition")))).toEqual([
      "delivered",
      "delivered",
      "own",
      "held",
    ]);
    await expect(records.getByTestId("record-disposition")).toHaveText([/^Delivered/, /^Delivered/, /^Own/, /^Held/]);
    // Plain messages are multicasts: no "Collective part" line for them.
    await expect(records.getByTestId("record-collective")).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Load more records" })).toHaveCount(0);
    await page.screenshot({ path: `${SHOTS}/dave-history.png`, fullPage: true });

    // A conversation longer than a page loads the rest on request.
    for (let n = 2; n <= 21; n += 1) await send(carol, "agent:dave", `carol note ${n}`);
    await expect(withCarol.getByTestId("conversation-records")).toHaveText("21");
    await withCarol.click();
    await expect(page).toHaveURL(`${consoleServer.url}/d/dave/history?conversation=direct%3Acarol%2Cdave`);
    await expect(records).toHaveCount(20);
    await expect(records.first().getByTestId("message-content")).toHaveText("hello dave, carol here");
    await page.getByRole("button", { name: "Load more records" }).click();
    await expect(records).toHaveCount(21);
    await expect(records.last().getByTestId("record-seq")).toHaveText("#21");
    await expect(records.last().getByTestId("message-content")).toHaveText("carol note 21");
    await expect(records.last()).toHaveAttribute("data-disposition", "held");
    await expect(page.getByRole("button", { name: "Load more records" })).toHaveCount(0);
    await page.screenshot({ path: `${SHOTS}/dave-history-paged.png`, fullPage: true });

    // Leave alice's inbox as it was: dave's reply is acknowledged.
    const inbox = (await tool(alice.client, "read_inbox", {})) as { items: { deliveryToken: string }[] };
    for (const { deliveryToken } of inbox.items) await tool(alice.client, "acknowledge_delivery", { deliveryToken });
  } finally {
    await alice.close();
    await carol.close();
    await dave.close();
  }
});

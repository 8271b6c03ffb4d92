/**
 * The owner console against a real network: sign-in through the one-time link, the overview,
 * bob's inbox showing a message alice sent over MCP, discarding it, a question bob's agent
 * answered shown as answered, and the refusals for a browser without a session or with a used link.
 */
import { connect, tool } from "../apps/daemon/test/harness/mcp.js";
import { expect, test } from "./network.js";

const SESSION_COOKIE = "sh_console_session";

test("refuses pages and API calls without a session", async ({ page, consoleServer }) => {
  for (const path of ["/", "/d/bob/inbox"]) {
    await page.goto(`${consoleServer.url}${path}`);
    await expect(page).toHaveURL(`${consoleServer.url}/signed-out`);
  }
  await expect(page.getByRole("heading", { name: "You are signed out" })).toBeVisible();
  await expect(page.getByTestId("signed-out")).toContainText("npm start");

  const api = await page.request.get(`${consoleServer.url}/api/daemons/bob/trpc/status`);
  expect(api.status()).toBe(401);
  expect(await api.json()).toMatchObject({ error: { data: { code: "UNAUTHORIZED" } } });

  await page.context().addCookies([
    {
      name: SESSION_COOKIE,
      value: `${Date.now() + 3_600_000}.AAAAAAAAAAAAAAAAAAAAAA.${"A".repeat(43)}`,
      url: consoleServer.url,
    },
  ]);
  await page.goto(`${consoleServer.url}/`);
  await expect(page).toHaveURL(`${consoleServer.url}/signed-out`);
  expect((await page.request.get(`${consoleServer.url}/api/daemons/bob/trpc/status`)).status()).toBe(401);
});

test("serves its static assets from public/ without a session", async ({ page, consoleServer }) => {
  const robots = await page.request.get(`${consoleServer.url}/robots.txt`);
  expect(robots.status()).toBe(200);
  expect(await robots.text()).toContain("Disallow: /");
  const icon = await page.request.get(`${consoleServer.url}/icon.svg`);
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toContain("image/svg+xml");
  await page.goto(`${consoleServer.url}/signed-out`);
  await expect(page.locator('link[rel="icon"]')).toHaveAttribute("href", /\/icon\.svg/);
});

test("shows alice's message in bob's inbox and discards it", async ({ page, consoleServer, network }) => {
  const ownerTokens = [network.alice.ownerToken, network.bob.ownerToken];
  const leaks: string[] = [];
  page.on("response", async (response) => {
    if (!response.url().startsWith(consoleServer.url)) return;
    const body = await response.text().catch(() => "");
    const headers = JSON.stringify(await response.allHeaders());
    if (ownerTokens.some((token) => body.includes(token) || headers.includes(token))) leaks.push(response.url());
  });

  const aliceMcp = await connect(network.alice.mcpUrl, network.alice.runtimeToken);
  try {
    expect(await tool(aliceMcp.client, "send_message", { to: "agent:bob", text: "hello from alice" })).toEqual({});
  } finally {
    await aliceMcp.close();
  }

  await page.goto(consoleServer.loginUrl);
  await expect(page).toHaveURL(`${consoleServer.url}/`);
  await expect(page.getByRole("heading", { name: "Daemons", level: 1 })).toBeVisible();
  const bobCard = page.getByTestId("daemon-card-bob");
  await expect(bobCard.getByTestId("daemon-pending")).toHaveText("1");
  await expect(bobCard.getByTestId("link-state")).toHaveAttribute("data-state", "ready");
  await expect(page.getByTestId("daemon-card-alice").getByTestId("daemon-pending")).toHaveText("0");
  await page.screenshot({ path: "test-results/screenshots/overview.png", fullPage: true });

  await bobCard.getByRole("link", { name: "Open bob’s inbox" }).click();
  await expect(page).toHaveURL(`${consoleServer.url}/d/bob/inbox`);
  await expect(page.getByRole("heading", { name: "bob", level: 1 })).toBeVisible();
  const item = page.getByTestId("inbox-item");
  await expect(item).toHaveCount(1);
  await expect(item).toHaveAttribute("data-kind", "multicast");
  await expect(item.getByTestId("item-sender")).toHaveText("agent:alice");
  await expect(item.getByTestId("message-content")).toHaveText("hello from alice");
  await expect(item.getByText(/^Received /)).toBeVisible();
  await expect(page.getByTestId("pending-count")).toHaveText("1");
  await page.screenshot({ path: "test-results/screenshots/bob-inbox.png", fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(item.getByRole("button", { name: "Discard message from agent:alice" })).toBeInViewport();
  await page.screenshot({ path: "test-results/screenshots/bob-inbox-narrow.png", fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });

  await item.getByRole("button", { name: "Discard message from agent:alice" }).click();
  // Discard asks first: nothing happens until the owner confirms.
  await expect(item.getByTestId("confirm-question")).toContainText("cannot be undone");
  await expect(page.getByTestId("pending-count")).toHaveText("1");
  await item.getByRole("button", { name: "Yes, discard message from agent:alice" }).click();
  await expect(item).toHaveCount(0);
  await expect(page.getByTestId("pending-count")).toHaveText("0");
  await expect(page.getByTestId("inbox-empty")).toBeVisible();
  await page.screenshot({ path: "test-results/screenshots/bob-inbox-empty.png", fullPage: true });

  const bobMcp = await connect(network.bob.mcpUrl, network.bob.runtimeToken);
  try {
    expect(await tool(bobMcp.client, "read_inbox", {})).toEqual({ items: [] });
  } finally {
    await bobMcp.close();
  }
  expect(leaks).toEqual([]);
});

test("shows a question bob answered as answered, with nothing left to answer", async ({
  page,
  consoleServer,
  network,
}) => {
  const question = "Which room for the review?";
  const requestedSchema = {
    type: "object",
    properties: { room: { type: "string", title: "Room", enum: ["north", "south"] } },
    required: ["room"],
  };
  const alice = await connect(network.alice.mcpUrl, network.alice.runtimeToken);
  const bob = await connect(network.bob.mcpUrl, network.bob.runtimeToken);
  try {
    const { operationId } = (await tool(alice.client, "send_message", {
      to: "agent:bob",
      text: JSON.stringify({ gather: question, deadline: 600, requestedSchema }),
    })) as { operationId: string };

    await page.goto(consoleServer.loginUrl);
    await page.goto(`${consoleServer.url}/d/bob/inbox`);
    const item = page.getByTestId("inbox-item").filter({ hasText: question });
    // Open: a Question with its deadline and the form an answer fills.
    await expect(item.getByTestId("item-label")).toHaveText("Question");
    await expect(item).not.toHaveAttribute("data-answered");
    await expect(item.getByText("Deadline")).toBeVisible();
    await expect(item.getByTestId("requested-schema")).toContainText("Room");
    await expect(item.getByTestId("item-answered")).toHaveCount(0);

    // Bob's agent answers and does not acknowledge: the item stays pending, answered.
    expect(
      await tool(bob.client, "send_message", {
        to: "agent:alice",
        text: JSON.stringify({ action: "accept", content: { room: "north" } }),
      }),
    ).toEqual({ operationId });
    await expect(item).toHaveAttribute("data-answered", "true");
    await expect(item.getByTestId("item-label")).toHaveText("Answered question");
    await expect(item.getByTestId("item-answered")).toBeVisible();
    await expect(item.getByText("Deadline")).toHaveCount(0);
    await expect(item.getByTestId("requested-schema")).toHaveCount(0);
    await expect(item.getByRole("button")).toHaveText(["Discard"]);
    await page.screenshot({ path: "test-results/screenshots/bob-inbox-answered.png", fullPage: true });

    await item.getByRole("button", { name: "Discard answered question from agent:alice" }).click();
    await expect(item.getByTestId("confirm-question")).toContainText("The agent has answered it");
    await item.getByRole("button", { name: "Yes, discard answered question from agent:alice" }).click();
    await expect(item).toHaveCount(0);

    // Alice's result (bob's answer) is acknowledged too, so later journeys find her inbox as before.
    const resultToken = async () => {
      const { items } = (await tool(alice.client, "read_inbox", {})) as {
        items: { deliveryToken: string; item: { kind: string; id?: string } }[];
      };
      return items.find((e) => e.item.kind === "collectiveResult" && e.item.id === operationId)?.deliveryToken;
    };
    await expect.poll(resultToken).toBeDefined();
    await tool(alice.client, "acknowledge_delivery", { deliveryToken: (await resultToken())! });
  } finally {
    await alice.close();
    await bob.close();
  }
});

test("accepts the login link once", async ({ browser, consoleServer }) => {
  const first = await browser.newContext();
  const second = await browser.newContext();
  try {
    const owner = await first.newPage();
    await owner.goto(consoleServer.loginUrl);
    await expect(owner).toHaveURL(`${consoleServer.url}/`);
    await expect(owner.getByRole("heading", { name: "Daemons", level: 1 })).toBeVisible();
    const session = (await first.cookies()).find((cookie) => cookie.name === SESSION_COOKIE);
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
    const hoursLeft = ((session?.expires ?? 0) * 1000 - Date.now()) / 3_600_000;
    expect(hoursLeft).toBeGreaterThan(11.9);
    // Chromium dates the cookie by its own clock, which may run a few microseconds ahead of Node's.
    expect(hoursLeft).toBeLessThanOrEqual(12 + 1 / 3600);

    // The browser that signed in is simply sent on to the console.
    await owner.goto(consoleServer.loginUrl);
    await expect(owner).toHaveURL(`${consoleServer.url}/`);

    const stranger = await second.newPage();
    await stranger.goto(consoleServer.loginUrl);
    await expect(stranger).toHaveURL(`${consoleServer.url}/signed-out?reason=used`);
    await expect(stranger.getByRole("heading", { name: "This login link has already been used" })).toBeVisible();
    await stranger.goto(`${consoleServer.url}/d/bob/inbox`);
    await expect(stranger).toHaveURL(`${consoleServer.url}/signed-out`);
    expect((await second.cookies()).some((cookie) => cookie.name === SESSION_COOKIE)).toBe(false);
  } finally {
    await first.close();
    await second.close();
  }
});

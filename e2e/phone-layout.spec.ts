/**
 * The console's frame on a phone against a real network: the navigation collapses to one short
 * row of daemon names (each daemon's pages carry their own tabs), so a page starts near the top;
 * the section tabs scroll sideways with a fade at the right edge that says there is more. At a
 * desktop's width the sidebar lists every daemon's sections and the tabs need no fade.
 */
import { expect, test } from "./network.js";

const DAEMONS = ["alice", "bob", "carol", "dave"];
const SHOTS = "test-results/screenshots";

test("on a phone the navigation is a row of daemon names and the tab row shows that it scrolls", async ({
  browser,
  consoleServer,
}) => {
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const desktop = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    await phone.goto(consoleServer.loginUrl);
    await expect(phone).toHaveURL(`${consoleServer.url}/`);
    await desktop.context().addCookies(await phone.context().cookies());
    await phone.goto(`${consoleServer.url}/d/bob/inbox`);
    await expect(phone.getByRole("heading", { name: "Pending items" })).toBeVisible();

    const nav = phone.getByRole("navigation", { name: "Console" });
    for (const name of DAEMONS) await expect(nav.getByRole("link", { name, exact: true })).toBeVisible();
    await expect(nav.getByRole("link", { name: "bob", exact: true })).toHaveAttribute("aria-current", "true");
    // No daemon's section links in the phone's navigation: the page's own tabs carry them.
    for (const section of ["Overview", "Inbox", "Held", "Subscriptions"])
      await expect(nav.getByRole("link", { name: section, exact: true })).toHaveCount(0);
    await expect(nav.getByRole("list", { name: "bob sections" })).toBeHidden();
    // The whole frame above the page is a short band, so the page starts near the top.
    const frame = await phone.locator("aside").boundingBox();
    expect(frame).not.toBeNull();
    expect(frame!.y + frame!.height).toBeLessThan(844 / 4);
    await expect(phone.getByRole("heading", { name: "bob", level: 1 })).toBeInViewport();
    await expect(phone.getByRole("heading", { name: "Pending items" })).toBeInViewport();

    // The tab row is cut at the right edge, and a fade there says it scrolls.
    const tabs = phone.getByRole("navigation", { name: "bob sections" });
    const row = tabs.getByRole("list");
    const fade = tabs.locator('[aria-hidden="true"]');
    expect(await row.evaluate((list) => list.scrollWidth > list.clientWidth)).toBe(true);
    await expect(fade).toBeVisible();
    const [rowBox, fadeBox] = [await row.boundingBox(), await fade.boundingBox()];
    expect(fadeBox!.width).toBeGreaterThan(0);
    expect(Math.round(fadeBox!.x + fadeBox!.width)).toBe(Math.round(rowBox!.x + rowBox!.width));
    expect(await fade.evaluate((span) => getComputedStyle(span).backgroundImage)).toContain("gradient");
    const last = tabs.getByRole("link", { name: "Subscriptions" });
    await expect(last).not.toBeInViewport({ ratio: 1 });
    await phone.screenshot({ path: `${SHOTS}/phone-frame.png` });
    // Scrolled to its end, the last tab is whole and clear of the fade.
    await row.evaluate((list) => list.scrollTo({ left: list.scrollWidth }));
    await expect(last).toBeInViewport({ ratio: 1 });
    const lastBox = await last.boundingBox();
    expect(lastBox!.x + lastBox!.width).toBeLessThanOrEqual((await fade.boundingBox())!.x + 1);
    await last.tap();
    await expect(phone).toHaveURL(`${consoleServer.url}/d/bob/subscriptions`);

    // At a desktop's width: the sidebar lists every daemon's sections, and the tabs fit unfaded.
    await desktop.goto(`${consoleServer.url}/d/bob/inbox`);
    const sidebar = desktop.getByRole("navigation", { name: "Console" });
    await expect(sidebar.getByRole("link", { name: "Inbox", exact: true })).toHaveCount(DAEMONS.length);
    await expect(sidebar.getByRole("list", { name: "bob sections" })).toBeVisible();
    const desktopTabs = desktop.getByRole("navigation", { name: "bob sections" });
    await expect(desktopTabs.locator('[aria-hidden="true"]')).toBeHidden();
    expect(await desktopTabs.getByRole("list").evaluate((list) => list.scrollWidth <= list.clientWidth)).toBe(true);
  } finally {
    await phone.close();
    await desktop.close();
  }
});

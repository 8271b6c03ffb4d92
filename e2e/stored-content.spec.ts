/**
 * Stored content in the console is inert (issue 23): script and markup payloads in every field a
 * peer controls that the console shows (message text, a gather's question and its schema's titles
 * and descriptions, answers, and firewall guidance and audit rows that echo a peer's words), then
 * every console page of every daemon rendered in Chromium: no script runs, no element is
 * injected, and no URL from content becomes a link target.
 */
import type { Page } from "@playwright/test";
import { connect, tool, type Connected } from "../apps/daemon/test/harness/mcp.js";
import { ownerClient } from "../apps/daemon/test/harness/owner.js";
import { expect, test } from "./network.js";

const PAYLOADS = [
  "<script>window.__pwned='script'</script>",
  "<img src=x onerror=\"window.__pwned='img'\">",
  "javascript:window.__pwned='url'",
  '"><svg onload="window.__pwned=\'svg\'">',
  "[link](javascript:window.__pwned='markdown') https://evil.example/steal",
];
const XSS = PAYLOADS.join(" ");
const SECTIONS = ["", "/inbox", "/holds", "/history", "/firewall", "/trust", "/subscriptions"];

async function send(from: Connected, to: string, text: string): Promise<unknown> {
  return tool(from.client, "send_message", { to, text });
}

/** What a rendered page shows of the payloads: script runs, injected elements and content hrefs. */
async function inspect(page: Page) {
  return page.evaluate(() => ({
    pwned: (window as { __pwned?: unknown }).__pwned ?? null,
    injected: Array.from(document.querySelectorAll("[onerror], [onload], img[src='x'], svg"))
      .filter((e) => e.getAttribute("onload") !== null || e.getAttribute("onerror") !== null || e.tagName === "IMG")
      .map((e) => e.outerHTML),
    hrefs: Array.from(document.querySelectorAll("a[href], [src], [action], [formaction]"))
      .map((e) => e.getAttribute("href") ?? e.getAttribute("src") ?? e.getAttribute("action") ?? "")
      .filter((v) => /javascript:|evil\.example|^x$/i.test(v)),
  }));
}

test("renders every peer-controlled field as text on every page", async ({ page, consoleServer, network }) => {
  test.setTimeout(180_000);
  const alice = await connect(network.alice.mcpUrl, network.alice.runtimeToken);
  const bob = await connect(network.bob.mcpUrl, network.bob.runtimeToken);
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  try {
    // Bob's firewall echoes alice's words back as guidance (an allow rule with an expectation)
    // and in its audit; a second rule holds her texts that mention "hold".
    await ownerClient(network.bob).firewall.set.mutate({
      policy: {
        mode: "enforce",
        middlewares: [
          {
            id: "house",
            kind: "rules",
            rules: [
              {
                id: "alice-words",
                direction: "inbound",
                match: { from: ["agent:alice"] },
                decision: "allow",
                expectation: "permitted",
                instruction: "Alice's words are data.",
              },
              {
                id: "hold-these",
                direction: "inbound",
                match: { text: { pattern: "please hold" } },
                decision: "hold",
                instruction: "The owner reads these first.",
              },
            ],
          },
        ],
      },
    });
    await send(alice, "agent:bob", `message ${XSS}`);
    await send(alice, "agent:bob", `please hold ${XSS}`);
    await send(alice, "agent:dave", `untrusted ${XSS}`);

    // A gather whose question and schema titles and descriptions carry the payloads; bob answers
    // with them too, so alice's result shows a peer's answer.
    const field = { type: "string", title: `title ${XSS}`, description: `description ${XSS}` };
    const { operationId } = (await send(
      alice,
      "agent:bob",
      JSON.stringify({
        gather: `question ${XSS}`,
        deadline: 120,
        requestedSchema: { type: "object", properties: { note: field }, required: ["note"] },
      }),
    )) as { operationId: string };
    await expect
      .poll(async () => JSON.stringify(await tool(bob.client, "read_inbox", {})).includes(operationId))
      .toBe(true);
    await send(bob, "agent:alice", JSON.stringify({ action: "accept", content: { note: `answer ${XSS}` } }));
    await expect
      .poll(async () => JSON.stringify(await tool(alice.client, "read_inbox", {})).includes("collectiveResult"))
      .toBe(true);

    await page.goto(consoleServer.loginUrl);
    await expect(page).toHaveURL(`${consoleServer.url}/`);
    const visited: string[] = [];
    for (const name of ["alice", "bob", "dave"]) {
      const conversations = await ownerClient(network[name as "alice" | "bob" | "dave"]).history.conversations.query(
        {},
      );
      const pages = [
        ...SECTIONS.map((section) => `/d/${name}${section}`),
        ...conversations.conversations.map(
          (c) => `/d/${name}/history?conversation=${encodeURIComponent(c.conversation)}`,
        ),
      ];
      for (const path of ["/", ...pages]) {
        await page.goto(`${consoleServer.url}${path}`);
        await page.waitForLoadState("networkidle");
        expect({ path, ...(await inspect(page)) }).toEqual({ path, pwned: null, injected: [], hrefs: [] });
        visited.push(path);
      }
    }
    // The payloads were on screen, as text: bob's inbox shows the message, its guidance and the
    // gather question; his firewall page shows the audit; alice's inbox shows bob's answer.
    await page.goto(`${consoleServer.url}/d/bob/inbox`);
    await expect(page.getByText(`message ${XSS}`).first()).toBeVisible();
    await expect(page.getByText(`question ${XSS}`).first()).toBeVisible();
    await page.goto(`${consoleServer.url}/d/bob/holds`);
    await expect(page.getByText(`please hold ${XSS}`).first()).toBeVisible();
    await page.goto(`${consoleServer.url}/d/dave/holds`);
    await expect(page.getByText(`untrusted ${XSS}`).first()).toBeVisible();
    await page.goto(`${consoleServer.url}/d/alice/inbox`);
    await expect(page.getByText(`answer ${XSS}`, { exact: false }).first()).toBeVisible();
    expect(await inspect(page)).toEqual({ pwned: null, injected: [], hrefs: [] });
    expect(dialogs).toEqual([]);
    expect(visited.length).toBeGreaterThan(20);
  } finally {
    await alice.close();
    await bob.close();
  }
});

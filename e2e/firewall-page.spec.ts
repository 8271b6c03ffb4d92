/**
 * The owner console's Firewall page against real daemons: erin starts with a policy file; the
 * owner's editor refuses a draft that is not JSON before any call and an invalid policy with each
 * field the daemon names shown at its line (the revision in force kept), then saves a fixed one;
 * the mode switch stores a revision per mode and each mode does what it says; the recent checks
 * show each middleware's decision or error and the latency; a replay summarizes what a draft would
 * change and stores nothing.
 */
import type { Page } from "@playwright/test";
import { callTool, connect, eventually, tool, type Connected } from "../apps/daemon/test/harness/mcp.js";
import { ownerClient } from "../apps/daemon/test/harness/owner.js";
import { clearInbox, expect, holdOf, inboxItemOf, test } from "./firewall-network.js";

const SHOTS = "test-results/screenshots";

type Policy = {
  mode: string;
  middlewares: ({ id: string; rules: Record<string, unknown>[] } & Record<string, unknown>)[];
};

async function send(from: Connected, to: string, text: string): Promise<void> {
  expect(await tool(from.client, "send_message", { to, text })).toEqual({});
}

const format = (policy: unknown) => `${JSON.stringify(policy, null, 2)}\n`;
const copy = (policy: unknown) => structuredClone(policy) as Policy;

/** The 1-based line of the first line containing `needle` after the first containing `after`. */
function lineOf(text: string, after: string, needle: string): number {
  const lines = text.split("\n");
  const start = lines.findIndex((line) => line.includes(after));
  const index = lines.findIndex((line, i) => i >= start && line.includes(needle));
  if (start < 0 || index < 0) throw new Error(`no line with ${needle} after ${after}`);
  return index + 1;
}

async function openFirewall(page: Page, server: { url: string; loginUrl: string }): Promise<void> {
  await page.goto(server.loginUrl);
  await page.goto(`${server.url}/d/erin/inbox`);
  await page.getByRole("navigation", { name: "erin sections" }).getByRole("link", { name: "Firewall" }).click();
  await expect(page).toHaveURL(`${server.url}/d/erin/firewall`);
}

test("refuses an invalid policy with inline field errors, keeps the revision in force, and saves a fixed one", async ({
  page,
  firewallConsole,
  firewalled,
}) => {
  const owner = ownerClient(firewalled.erin);
  const before = await owner.firewall.get.query();
  const sets: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("firewall.set")) sets.push(request.url());
  });
  try {
    await openFirewall(page, firewallConsole);
    const editor = page.getByRole("textbox", { name: "Policy draft (JSON)" });
    await expect(editor).toHaveValue(format(before.policy));
    await expect(page.getByTestId("policy-in-force-revision")).toHaveText(`revision ${before.revision}`);
    const revisions = page.getByTestId("revision");
    await expect(revisions.first()).toHaveAttribute("data-revision", String(before.revision));
    await expect(revisions.last().getByTestId("revision-author")).toHaveText(/^policy file \/.*policy\.json$/);
    await expect(revisions.first().locator("time")).toHaveAttribute("datetime", /^\d{4}-\d\d-\d\dT.*Z$/);
    await expect(revisions.first().getByTestId("revision-mode")).toHaveText("Enforce");
    await expect(page.getByTestId("policy-in-force")).toContainText(", enforce, 2 middlewares · set ");

    // Not JSON: refused here, at its line, and nothing is sent.
    const broken = format(before.policy).replace('"mode": "enforce",', '"mode": "enforce",,');
    await editor.fill(broken);
    await page.getByRole("button", { name: "Save as a new revision" }).click();
    const refused = page.getByTestId("policy-refused");
    await expect(refused).toContainText("The draft is not JSON; nothing was sent.");
    await expect(refused.getByTestId("policy-issue")).toHaveAttribute("data-path", "(json)");
    await expect(refused.getByTestId("policy-issue")).toHaveAttribute("data-line", "2");
    expect(sets).toEqual([]);

    // Invalid fields: each named by the daemon and shown at its line, under the field.
    const draft = copy(before.policy);
    delete draft.middlewares[0]!.rules[0]!.instruction;
    draft.middlewares[0]!.rules[1]!.decision = "refuse";
    draft.middlewares[1]!.rules[0]!.uncertainAt = 0.9;
    const text = format(draft);
    await editor.fill(text);
    await page.getByRole("button", { name: "Save as a new revision" }).click();
    await expect(refused).toContainText(
      `The daemon refused the draft: revision ${before.revision} stays in force, unchanged.`,
    );
    const expected = [
      { path: "middlewares.0.rules.0.instruction", line: lineOf(text, '"id": "house"', '"id": "money"') - 1 },
      {
        path: "middlewares.0.rules.1.decision",
        line: lineOf(text, '"id": "team"', '"decision"'),
        message: "refuse applies to outbound rules only; hold inbound items",
      },
      {
        path: "middlewares.0.rules.1.expectation",
        line: lineOf(text, '"id": "team"', '"expectation"'),
        message: "only an allow rule carries an expectation",
      },
      {
        path: "middlewares.1.rules.0.uncertainAt",
        line: lineOf(text, '"id": "injection"', '"uncertainAt"'),
        message: "must not be above decideAt",
      },
    ];
    const issues = refused.getByTestId("policy-issue");
    await expect(issues).toHaveCount(expected.length);
    for (const [index, issue] of expected.entries()) {
      const shown = issues.nth(index);
      await expect(shown).toHaveAttribute("data-path", issue.path);
      await expect(shown).toHaveAttribute("data-line", String(issue.line));
      if (issue.message !== undefined) {
        await expect(shown.getByTestId("policy-issue-message")).toHaveText(issue.message);
        await expect(shown.getByTestId("policy-issue-inline")).toHaveText(new RegExp(`\\^ ${issue.message}$`));
      }
    }
    // The missing field is shown at the rule that lacks it.
    await expect(issues.first()).toContainText("line " + expected[0]!.line + " (its enclosing field)");
    const marked = page.getByTestId("editor-marked-line");
    expect(await marked.evaluateAll((nodes) => nodes.map((node) => Number(node.getAttribute("data-line"))))).toEqual(
      [...new Set(expected.map((issue) => issue.line))].sort((a, b) => a - b),
    );
    // The policy in force is the one before: the page and the daemon say so.
    await expect(page.getByTestId("policy-in-force-revision")).toHaveText(`revision ${before.revision}`);
    await expect(revisions.first()).toHaveAttribute("data-revision", String(before.revision));
    expect(await owner.firewall.get.query()).toEqual(before);
    expect(sets).toHaveLength(1);
    await refused.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/erin-firewall-refused.png`, fullPage: true });

    // Fixed: a new revision, in force, by the owner.
    const fixed = copy(before.policy);
    fixed.middlewares[0]!.rules.push({
      id: "quiet-hours",
      direction: "inbound",
      match: { text: { pattern: "after midnight", flags: "i" } },
      decision: "hold",
      instruction: "Late-night requests wait for the morning.",
    });
    await editor.fill(format(fixed));
    await page.getByRole("button", { name: "Save as a new revision" }).click();
    const next = before.revision + 1;
    await expect(page.getByTestId("policy-saved")).toHaveText(`Saved as revision ${next}; it is in force now.`);
    await expect(refused).toHaveCount(0);
    await expect(page.getByTestId("policy-in-force-revision")).toHaveText(`revision ${next}`);
    await expect(revisions.first()).toHaveAttribute("data-revision", String(next));
    await expect(revisions.first()).toHaveAttribute("aria-current", "true");
    await expect(revisions.first().getByTestId("revision-author")).toHaveText("owner");
    await expect(revisions.first().getByTestId("revision-mode")).toHaveText("Enforce");
    await expect(page.getByTestId("policy-in-force")).toContainText(/ · set .* by owner$/);
    await expect(page.getByTestId("draft-base")).toHaveText(`The policy in force, revision ${next}`);
    const after = await owner.firewall.get.query();
    expect(after.revision).toBe(next);
    expect(after.policy).toMatchObject(fixed);
    await expect(editor).toHaveValue(format(after.policy));
    await page.screenshot({ path: `${SHOTS}/erin-firewall-saved.png`, fullPage: true });
  } finally {
    await firewalled.restorePolicy();
  }
});

test("switches the mode, each switch a new revision with only the mode changed", async ({
  page,
  firewallConsole,
  firewalled,
  network,
}) => {
  const { erin } = firewalled;
  const owner = ownerClient(erin);
  const alice = await connect(network.alice.mcpUrl, network.alice.runtimeToken);
  const before = await owner.firewall.get.query();
  const checked = async (text: string) =>
    (await owner.firewall.checks.query({ limit: 200 })).checks.find((c) => c.subjects.some((s) => s.text === text));
  try {
    await openFirewall(page, firewallConsole);
    await expect(page.getByTestId("mode-enforce")).toHaveAttribute("aria-pressed", "true");
    await expect(page.getByTestId("header-firewall-mode")).toHaveText("enforce");
    const revisions = page.getByTestId("revision");
    const steps = [
      { mode: "guidance", probe: "guidance probe: a gift card for the raffle" },
      { mode: "off", probe: "off probe: another gift card" },
      { mode: "enforce", probe: "enforce probe: one more gift card" },
    ] as const;
    for (const [index, { mode, probe }] of steps.entries()) {
      const revision = before.revision + index + 1;
      await page.getByTestId(`mode-${mode}`).click();
      await expect(page.getByTestId("mode-result")).toHaveText(`Mode set to ${mode}: revision ${revision}.`);
      await expect(page.getByTestId(`mode-${mode}`)).toHaveAttribute("aria-pressed", "true");
      await expect(page.getByTestId("header-firewall-mode")).toHaveText(mode);
      await expect(revisions.first()).toHaveAttribute("data-revision", String(revision));
      await expect(revisions.first()).toHaveAttribute("data-mode", mode);
      await expect(revisions.first().getByTestId("revision-author")).toHaveText("owner");
      // Only the mode changed.
      expect(await owner.firewall.get.query()).toEqual({ revision, policy: { ...before.policy, mode } });
      await page.screenshot({ path: `${SHOTS}/erin-firewall-mode-${mode}.png`, fullPage: true });

      // And the mode does what it says with a message the money rule holds.
      await send(alice, "agent:erin", probe);
      if (mode === "guidance") {
        // Decided hold, recorded, and admitted with guidance all the same.
        expect((await inboxItemOf(erin, probe)).guidance).toBeDefined();
        const check = await eventually(() => checked(probe));
        expect(check).toMatchObject({ mode: "guidance", decision: "hold", outcome: "admitted" });
        const card = page.getByTestId("firewall-check").filter({ hasText: probe });
        await expect(card).toHaveAttribute("data-decision", "hold");
        await expect(card.getByTestId("check-outcome")).toHaveText("admitted to the inbox");
      } else if (mode === "off") {
        await inboxItemOf(erin, probe);
        expect(await checked(probe)).toBeUndefined();
      } else {
        expect((await holdOf(erin, probe)).source).toBe("firewall");
      }
    }
    await expect(revisions.nth(1)).toHaveAttribute("data-mode", "off");
    await expect(revisions.nth(2)).toHaveAttribute("data-mode", "guidance");
    await expect(revisions.nth(3)).toHaveAttribute("data-revision", String(before.revision));
  } finally {
    const hold = await holdOf(erin, "enforce probe").catch(() => undefined);
    if (hold !== undefined) await owner.holds.discard.mutate({ holdId: hold.id });
    await clearInbox(erin);
    await firewalled.restorePolicy();
    await alice.close();
  }
});

test("lists recent checks with each middleware's decision or error and the latency", async ({
  page,
  firewallConsole,
  firewalled,
  network,
}) => {
  const { erin } = firewalled;
  const owner = ownerClient(erin);
  const alice = await connect(network.alice.mcpUrl, network.alice.runtimeToken);
  const bob = await connect(network.bob.mcpUrl, network.bob.runtimeToken);
  const host = await connect(erin.mcpUrl, erin.runtimeToken);
  const outage = "judge outage probe: the weekly report";
  const lunch = "checks probe: lunch at noon?";
  const secret = "checks probe: the password: hunter2hunter2";
  try {
    // Nobody scripted the judge for this one: it answers HTTP 500, and onError holds.
    await send(bob, "agent:erin", outage);
    await send(alice, "agent:erin", lunch);
    const refused = await callTool(host.client, "send_message", { to: "agent:alice", text: secret });
    expect(refused).toMatchObject({ ok: false, data: { reason: "firewall-refused", refusal: "refused" } });
    await holdOf(erin, outage);
    await inboxItemOf(erin, lunch);

    await openFirewall(page, firewallConsole);
    const checks = page.getByTestId("firewall-check");
    const latency = /^\d+(\.\d+)? (µs|ms)$/;
    const failed = checks.filter({ hasText: outage });
    await expect(failed).toHaveAttribute("data-direction", "inbound");
    await expect(failed).toHaveAttribute("data-decision", "hold");
    await expect(failed.getByTestId("check-outcome")).toHaveText("held for the owner");
    const judgeRow = failed.getByTestId("audit-middleware").and(page.locator('[data-middleware-id="judge"]'));
    await expect(judgeRow).toHaveAttribute("data-error", "true");
    await expect(judgeRow).toContainText("Error · decided hold");
    await expect(judgeRow.getByTestId("audit-error")).toHaveText("injection: the judge answered HTTP 500");
    await expect(judgeRow.getByTestId("audit-latency")).toHaveText(latency);
    const houseRow = failed.getByTestId("audit-middleware").and(page.locator('[data-middleware-id="house"]'));
    await expect(houseRow).toHaveAttribute("data-decision", "allow");
    await expect(houseRow.getByTestId("audit-rule")).toHaveText([/^team\s*allow/]);
    await expect(failed.getByTestId("check-latency")).toHaveText(latency);
    await expect(failed.getByTestId("check-subject")).toContainText("multicast from agent:bob to agent:erin");
    await failed.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/erin-firewall-checks.png`, fullPage: true });

    const allowed = checks.filter({ hasText: lunch });
    await expect(allowed).toHaveAttribute("data-decision", "allow");
    await expect(allowed.getByTestId("check-outcome")).toHaveText("admitted to the inbox");
    await expect(allowed.getByTestId("check-latency")).toHaveText(latency);
    await expect(allowed.getByTestId("guidance-instruction")).toHaveAttribute("data-rule", "house/team");

    const outbound = checks.filter({ hasText: secret });
    await expect(outbound).toHaveAttribute("data-direction", "outbound");
    await expect(outbound).toHaveAttribute("data-decision", "refuse");
    await expect(outbound.getByTestId("check-outcome")).toHaveText("refused to the agent");
    await expect(outbound.getByTestId("check-subject")).toContainText("multicast from agent:erin to agent:alice");
    const rule = outbound.getByTestId("audit-middleware").and(page.locator('[data-middleware-id="house"]'));
    await expect(rule).toHaveAttribute("data-decision", "refuse");
    await expect(rule.getByTestId("audit-rule")).toHaveText(/^no-credentials-out\s*refuse/);
    await expect(outbound.getByTestId("check-latency")).toHaveText(latency);
    // On a phone the checks fit the width: nothing scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(outbound).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await outbound.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/erin-firewall-checks-narrow.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 720 });
    // The page shows the daemon's audit, newest first.
    const { checks: audit } = await owner.firewall.checks.query({ limit: 20 });
    expect(await checks.evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-check-id")))).toEqual(
      audit.map((check) => check.checkId),
    );
  } finally {
    const hold = await holdOf(erin, outage).catch(() => undefined);
    if (hold !== undefined) await owner.holds.discard.mutate({ holdId: hold.id });
    await clearInbox(erin);
    await alice.close();
    await bob.close();
    await host.close();
  }
});

test("replays a draft over the stored records and summarizes what would change", async ({
  page,
  firewallConsole,
  firewalled,
  network,
}) => {
  const { erin } = firewalled;
  const owner = ownerClient(erin);
  const alice = await connect(network.alice.mcpUrl, network.alice.runtimeToken);
  const probes = ["replay probe one: standup moved to 10", "replay probe two: standup notes are up"];
  try {
    for (const probe of probes) await send(alice, "agent:erin", probe);
    for (const probe of probes) await inboxItemOf(erin, probe);
    const before = await owner.firewall.get.query();
    // The draft drops the judge and holds the probes.
    const draft = copy(before.policy);
    draft.middlewares = draft.middlewares.filter((middleware) => middleware.id !== "judge");
    draft.middlewares[0]!.rules.push({
      id: "replay-probe",
      direction: "inbound",
      match: { text: { pattern: "replay probe" } },
      decision: "hold",
      instruction: "Probes wait for the owner.",
    });

    await openFirewall(page, firewallConsole);
    const editor = page.getByRole("textbox", { name: "Policy draft (JSON)" });
    await editor.fill(format(draft));
    await page.getByRole("button", { name: "Replay the draft" }).click();
    const report = page.getByTestId("replay-report");
    await expect(report).toBeVisible();
    const expected = await owner.firewall.replay.mutate({ policy: draft, limit: 50 });
    expect(expected.summary.changes["allow → hold"]).toBeGreaterThanOrEqual(2);
    await expect(report.getByTestId("replay-changed")).toHaveText(String(expected.summary.changed));
    await expect(report.getByTestId("replay-summary")).toContainText(
      `Over the last ${expected.summary.records} records the draft checks ${expected.summary.checked};`,
    );
    const changes = report.getByTestId("replay-change");
    await expect(changes).toHaveCount(Object.keys(expected.summary.changes).length);
    for (const [change, count] of Object.entries(expected.summary.changes)) {
      await expect(
        changes.and(page.locator(`[data-change="${change}"]`)).getByTestId("replay-change-count"),
      ).toHaveText(String(count));
    }
    // The changed entries are listed, each with what was decided and what the draft would decide.
    const entries = report.getByTestId("replay-entry");
    await expect(entries).toHaveCount(expected.summary.changed);
    for (const probe of probes) {
      const entry = entries.filter({ hasText: probe });
      await expect(entry).toHaveAttribute("data-changed", "true");
      await expect(entry.getByTestId("replay-was")).toHaveText("Allow");
      await expect(entry.getByTestId("replay-would")).toHaveText("Hold");
      await expect(entry).toContainText("house/replay-probe: hold");
    }
    await report.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/erin-firewall-replay.png`, fullPage: true });
    await report.getByRole("button", { name: `Show all ${expected.entries.length}` }).click();
    await expect(entries).toHaveCount(expected.entries.length);

    // A replay stores nothing: the same revision is in force.
    expect(await owner.firewall.get.query()).toEqual(before);
    await expect(page.getByTestId("revision").first()).toHaveAttribute("data-revision", String(before.revision));

    // An invalid draft cannot be replayed; its fields are named as for a save.
    draft.middlewares[0]!.rules.at(-1)!.decision = "refuse";
    await editor.fill(format(draft));
    await page.getByRole("button", { name: "Replay the draft" }).click();
    const refused = page.getByTestId("policy-refused");
    await expect(refused).toContainText("The daemon cannot replay the draft: it is not a valid policy.");
    await expect(refused.getByTestId("policy-issue")).toHaveAttribute(
      "data-path",
      `middlewares.0.rules.${draft.middlewares[0]!.rules.length - 1}.decision`,
    );
    await expect(report).toHaveCount(0);
  } finally {
    await clearInbox(erin);
    await alice.close();
  }
});

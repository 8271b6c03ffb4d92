/**
 * `npm start` as a user runs it: `social-harness demo` brings up a router, alice, bob, carol and
 * the console on loopback; the printed login link signs a browser in; a message alice sends shows
 * in bob's inbox; its router admits only the daemons it issued tokens to; Ctrl-C stops every
 * process; a second start reuses the data directory, so identities and the pending item survive.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { connect, tool } from "../apps/daemon/test/harness/mcp.js";
import { DaemonProcess, removeDirs, tempDir } from "../apps/daemon/test/harness/processes.js";
import { spawnServer, type ServerProcess } from "@social-harness/cli";

const CLI = path.resolve(import.meta.dirname, "../apps/cli/bin/social-harness.js");

interface DemoLine {
  console: string;
  router: string;
  daemons: Record<string, { mcp: string; data: string; runtimeTokenFile: string }>;
}

async function startDemo(dataDir: string): Promise<{ demo: ServerProcess; line: DemoLine }> {
  const demo = spawnServer(process.execPath, [CLI, "demo", "--data", dataDir]);
  const line = (await demo.ready) as unknown as DemoLine;
  return { demo, line };
}

test("npm start runs the whole network, stops on Ctrl-C and keeps its data", async ({ page }) => {
  test.setTimeout(120_000);
  const dataDir = tempDir("demo");
  try {
    const first = await startDemo(dataDir);
    expect(Object.keys(first.line.daemons).sort()).toEqual(["alice", "bob", "carol"]);
    const aliceKey = readFileSync(path.join(dataDir, "alice", "identity.key"), "utf8");

    const alice = first.line.daemons.alice!;
    const mcp = await connect(alice.mcp, readFileSync(alice.runtimeTokenFile, "utf8").trim());
    expect(await tool(mcp.client, "send_message", { to: "agent:bob", text: "hello from the demo" })).toEqual({});
    await mcp.close();

    // The demo's router admits new names by token, and only its own daemons hold one.
    const strangerDir = tempDir("stranger");
    const stranger = await DaemonProcess.start({ name: "mallory", router: first.line.router, dataDir: strangerDir });
    try {
      await expect
        .poll(async () => (await fetch(stranger.mcpUrl.replace(/\/mcp$/, "/healthz"))).json())
        .toMatchObject({ link: "not-registered", refusal: { admission: "token-required" } });
    } finally {
      await stranger.stop();
      removeDirs(strangerDir);
    }

    await page.goto(first.line.console);
    for (const name of ["alice", "bob", "carol"]) await expect(page.getByTestId(`daemon-card-${name}`)).toBeVisible();
    await expect(page.getByTestId("daemon-card-bob").getByTestId("daemon-pending")).toHaveText("1");
    await page.screenshot({ path: "test-results/screenshots/demo-overview.png", fullPage: true });

    // Ctrl-C stops the router, the daemons and the console.
    first.demo.child.kill("SIGINT");
    expect(await first.demo.exited).toBe(0);
    await expect(fetch(alice.mcp.replace(/\/mcp$/, "/healthz"))).rejects.toThrow();
    await expect(fetch(new URL(first.line.console).origin)).rejects.toThrow();

    const second = await startDemo(dataDir);
    try {
      expect(readFileSync(path.join(dataDir, "alice", "identity.key"), "utf8")).toBe(aliceKey);
      expect(second.line.daemons.alice!.mcp).toBe(alice.mcp);
      await page.goto(second.line.console);
      await page.getByTestId("daemon-card-bob").getByRole("link").first().click();
      await expect(page.getByText("hello from the demo")).toBeVisible();
    } finally {
      second.demo.child.kill("SIGINT");
      await second.demo.exited;
    }
  } finally {
    removeDirs(dataDir);
  }
});

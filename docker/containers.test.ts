/**
 * docker/compose.yaml run for real: the offline base images, the three images, the network up and
 * healthy, messages through the daemons' published MCP ports, the console in Chromium, a daemon
 * container restarted with its volume, and everything (volumes too) removed at the end. Where no
 * Docker engine can run, one line says why and the suite skips.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Browser } from "@playwright/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, eventually, tool, type Connected } from "../apps/daemon/test/harness/mcp.js";
import { ensureEngine } from "./engine.js";
import { ComposeNetwork } from "./network.js";

const engine = await ensureEngine();
if (!engine.ok) console.warn(`containers: skipped, no Docker engine here: ${engine.reason}`);

interface InboxEntry {
  deliveryToken: string;
  item: { kind: string; message: { kind: string; sender: string; address: string; content: unknown[] } };
}

describe.skipIf(!engine.ok)("the compose network in containers", () => {
  const logDir = mkdtempSync(path.join(tmpdir(), "sh-containers-"));
  const net = new ComposeNetwork(path.join(logDir, "compose.log"));
  const mcp = new Map<string, Connected>();
  let browser: Browser | undefined;

  async function mcpOf(name: string): Promise<Connected> {
    const known = mcp.get(name);
    if (known !== undefined) return known;
    const address = await net.published(name, 8080);
    const connected = await connect(`http://${address}/mcp`, await net.read(name, "/data/runtime.token"));
    mcp.set(name, connected);
    return connected;
  }

  async function inboxOf(name: string, count: number): Promise<InboxEntry[]> {
    const { client } = await mcpOf(name);
    return eventually(
      async () => {
        const items = (await tool(client, "read_inbox", {})).items as InboxEntry[];
        return items.length >= count ? items : undefined;
      },
      60_000,
      `${count} items in ${name}'s inbox`,
    );
  }

  async function owner(name: string, procedure: string, input: unknown): Promise<unknown> {
    const address = await net.published(name, 8080);
    const query = `?input=${encodeURIComponent(JSON.stringify(input))}`;
    const response = await fetch(`http://${address}/trpc/${procedure}${query}`, {
      headers: { authorization: `Bearer ${await net.read(name, "/data/owner.token")}` },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { result: { data: unknown } }).result.data;
  }

  beforeAll(async () => {
    await net.sh("bash", ["docker/base-images.sh"]);
    await net.compose("build");
    await net.compose("up", "-d");
    await net.healthy();
  }, 1_500_000);

  afterAll(async () => {
    await browser?.close();
    for (const connected of mcp.values()) await connected.close().catch(() => {});
    try {
      await net.compose("down", "--volumes", "--remove-orphans");
    } finally {
      if (engine.ok) await engine.stop();
      rmSync(logDir, { recursive: true, force: true });
    }
  }, 300_000);

  it("publishes every port on loopback only", async () => {
    for (const [service, port] of [
      ["router", 7700],
      ["alice", 8080],
      ["bob", 8080],
      ["carol", 8080],
      ["console", 3000],
    ] as const)
      expect(await net.published(service, port)).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it("runs every service as a user other than root", async () => {
    for (const service of ["router", "alice", "console", "postgres"])
      expect((await net.compose("exec", "-T", service, "id", "-u")).trim()).not.toBe("0");
  });

  it("delivers a direct message from alice to bob and a group message to bob and carol", async () => {
    const alice = await mcpOf("alice");
    expect(await tool(alice.client, "send_message", { to: "agent:bob", text: "hello bob, from a container" })).toEqual(
      {},
    );
    expect(await tool(alice.client, "send_message", { to: "group:bob,carol", text: "hello group" })).toEqual({});

    const bob = await inboxOf("bob", 2);
    expect(
      bob.map((entry) => [entry.item.message.kind, entry.item.message.sender, entry.item.message.content[0]]),
    ).toEqual([
      ["direct", "agent:alice", { type: "text", text: "hello bob, from a container" }],
      ["group", "agent:alice", { type: "text", text: "hello group" }],
    ]);
    const carol = await inboxOf("carol", 1);
    expect(carol.map((entry) => entry.item.message.address)).toEqual(["group:alice,bob,carol"]);
  });

  it("answers the console's login link and shows bob's inbox in Chromium", async () => {
    await inboxOf("bob", 2);
    const address = await net.published("console", 3000);
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium" });
    const page = await browser.newPage();
    await page.goto(`http://${address}/login?token=${encodeURIComponent(net.loginToken)}`);
    for (const name of ["alice", "bob", "carol"]) await page.getByTestId(`daemon-card-${name}`).waitFor();
    await page.goto(`http://${address}/d/bob/inbox`);
    await page.getByText("hello bob, from a container").waitFor();
    expect(await page.getByTestId("pending-count").textContent()).toBe("2");
  });

  it("keeps bob's identity, history and inbox in his volume across a restart of his container", async () => {
    const identity = (await net.compose("exec", "-T", "bob", "sha256sum", "/data/identity.key")).trim();
    const inbox = await inboxOf("bob", 2);
    const conversations = await owner("bob", "history.conversations", {});

    await mcp.get("bob")?.close();
    mcp.delete("bob");
    await net.compose("restart", "bob");
    await net.healthy(["bob"]);

    expect((await net.compose("exec", "-T", "bob", "sha256sum", "/data/identity.key")).trim()).toBe(identity);
    expect(await owner("bob", "history.conversations", {})).toEqual(conversations);
    expect(await inboxOf("bob", 2)).toEqual(inbox);
    // The router still knows bob by the same key: a new message reaches him after the restart.
    const alice = await mcpOf("alice");
    await tool(alice.client, "send_message", { to: "agent:bob", text: "after the restart" });
    const after = await inboxOf("bob", 3);
    expect(after.slice(0, 2)).toEqual(inbox);
    expect(after[2]!.item.message.content[0]).toEqual({ type: "text", text: "after the restart" });
  });
});

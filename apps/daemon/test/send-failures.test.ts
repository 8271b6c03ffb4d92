import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, connect, eventually } from "./harness/mcp.js";
import { Network, waitForItems } from "./harness/network.js";
import { DaemonProcess, removeDirs, tempDir } from "./harness/processes.js";

const refused = (reason: string) => ({ ok: false, code: -32030, data: { reason } });

describe("every SendError reason, provoked through real processes", () => {
  let net: Network;

  beforeAll(async () => {
    net = await Network.start(["alice", "bob", "carol"]);
  });
  afterAll(() => net?.close());

  const send = (to: string, text: string) => callTool(net.agent("alice").mcp.client, "send_message", { to, text });

  it("invalid-address: a malformed or self address", async () => {
    for (const to of ["agent:Bob", "bob", "group:bob,,carol", "group:bob,bob,carol", "agent:alice"]) {
      expect(await send(to, "x")).toMatchObject(refused("invalid-address"));
    }
  });

  it("membership-invalid: a group of two", async () => {
    expect(await send("group:bob", "x")).toMatchObject(refused("membership-invalid"));
    expect(await send("group:alice,bob", "x")).toMatchObject(refused("membership-invalid"));
  });

  it("unknown-agent: a name nobody registered", async () => {
    expect(await send("agent:zed", "x")).toMatchObject(refused("unknown-agent"));
    expect(await send("group:bob,zed", "x")).toMatchObject(refused("unknown-agent"));
  });

  it("content-invalid: more than 1 MiB of content, or an empty message", async () => {
    const outcome = await send("agent:bob", "x".repeat(1024 * 1024 + 1));
    expect(outcome).toMatchObject(refused("content-invalid"));
    expect(await send("agent:bob", "")).toMatchObject(refused("content-invalid"));
  });

  it("content-invalid: a malformed operation, naming each failing field", async () => {
    const outcome = await send(
      "agent:bob",
      '{"gather": "", "deadline": 0, "requestedSchema": {"type": "object", "properties": {}}}',
    );
    expect(outcome).toMatchObject(refused("content-invalid"));
    expect(!outcome.ok && (outcome.data as { detail: string }).detail).toMatch(/gather.*deadline|deadline.*gather/);
  });

  it("not-registered: a daemon whose name is bound to another key", async () => {
    const impostor = await DaemonProcess.start({ name: "bob", router: net.router.url });
    const mcp = await connect(impostor.mcpUrl, impostor.runtimeToken);
    try {
      await eventually(async () => (impostor.stderr().includes("name-taken") ? true : undefined));
      expect(await callTool(mcp.client, "send_message", { to: "agent:alice", text: "x" })).toMatchObject(
        refused("not-registered"),
      );
    } finally {
      await mcp.close();
      await impostor.stop();
      removeDirs(impostor.dataDir);
    }
  });

  it("persistence-failed: a full data directory, with nothing sent", async () => {
    const mount = tempDir("full");
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", mount]);
    const dataDir = path.join(mount, "dave");
    mkdirSync(dataDir);
    const dave = await net.add("dave", { dataDir });
    try {
      expect(await callTool(dave.mcp.client, "send_message", { to: "agent:bob", text: "warm up" })).toMatchObject({
        ok: true,
      });
      const filler = path.join(mount, "filler");
      try {
        execFileSync("dd", ["if=/dev/zero", `of=${filler}`, "bs=64k"], { stdio: "ignore" });
      } catch {
        // dd stops when the filesystem is full: that is the point.
      }
      const before = (await waitForItems(net.agent("bob"), 1)).length;
      const big = "y".repeat(200_000);
      expect(await callTool(dave.mcp.client, "send_message", { to: "agent:bob", text: big })).toMatchObject(
        refused("persistence-failed"),
      );
      rmSync(filler);
      expect(await callTool(dave.mcp.client, "send_message", { to: "agent:bob", text: "space again" })).toMatchObject({
        ok: true,
      });
      const after = await waitForItems(net.agent("bob"), before + 1);
      expect(after.map((e) => e.item.message.content[0].text)).not.toContain(big);
    } finally {
      await net.stop("dave");
      execFileSync("umount", ["-l", mount]);
      removeDirs(mount);
    }
  });

  it("network-unavailable: the router is unreachable before anything is bound", async () => {
    const frank = await DaemonProcess.start({ name: "frank", router: "ws://127.0.0.1:9" });
    const mcp = await connect(frank.mcpUrl, frank.runtimeToken);
    try {
      expect(await callTool(mcp.client, "send_message", { to: "agent:bob", text: "x" })).toMatchObject(
        refused("network-unavailable"),
      );
    } finally {
      await mcp.close();
      await frank.stop();
      removeDirs(frank.dataDir);
    }
  });
});

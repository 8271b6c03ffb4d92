import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, connect, eventually, tool, type Connected } from "./harness/mcp.js";
import { DaemonProcess, removeDirs, RouterProcess } from "./harness/processes.js";

describe("a message from alice to bob through real processes", () => {
  let router: RouterProcess;
  let alice: DaemonProcess;
  let bob: DaemonProcess;
  let aliceMcp: Connected;
  let bobMcp: Connected;

  beforeAll(async () => {
    router = await RouterProcess.start();
    [alice, bob] = await Promise.all([
      DaemonProcess.start({ name: "alice", router: router.url }),
      DaemonProcess.start({ name: "bob", router: router.url }),
    ]);
    aliceMcp = await connect(alice.mcpUrl, alice.runtimeToken);
    bobMcp = await connect(bob.mcpUrl, bob.runtimeToken);
  });

  afterAll(async () => {
    await aliceMcp?.close();
    await bobMcp?.close();
    await Promise.all([alice?.stop(), bob?.stop()]);
    await router?.stop();
    removeDirs(alice.dataDir, bob.dataDir, router.dataDir);
  });

  it("delivers, reads, acknowledges and then reads an empty inbox", async () => {
    expect(await tool(aliceMcp.client, "send_message", { to: "agent:bob", text: "hello bob" })).toEqual({});
    const page = await eventually(async () => {
      const result = await tool(bobMcp.client, "read_inbox", {});
      return (result.items as unknown[]).length > 0 ? result : undefined;
    });
    const items = page.items as { deliveryToken: string; item: Record<string, unknown> }[];
    expect(items).toHaveLength(1);
    expect(items[0]!.deliveryToken).toMatch(/^dlv_[A-Za-z0-9_-]{43}$/);
    expect(items[0]!.item).toEqual({
      kind: "multicast",
      message: {
        kind: "direct",
        postId: expect.stringMatching(/^pst_/),
        address: "agent:alice",
        sender: "agent:alice",
        content: [{ type: "text", text: "hello bob" }],
      },
    });
    expect(await tool(bobMcp.client, "acknowledge_delivery", { deliveryToken: items[0]!.deliveryToken })).toEqual({});
    expect(await tool(bobMcp.client, "read_inbox", {})).toEqual({ items: [] });
  });

  it("never offers the author its own post", async () => {
    await tool(aliceMcp.client, "send_message", { to: "agent:bob", text: "second" });
    expect(await tool(aliceMcp.client, "read_inbox", {})).toEqual({ items: [] });
  });

  it("refuses a call without the runtime token", async () => {
    const response = await fetch(alice.mcpUrl, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(401);
  });

  it("refuses unknown recipients as unknown-agent", async () => {
    const outcome = await callTool(aliceMcp.client, "send_message", { to: "agent:nobody-here", text: "hi" });
    expect(outcome).toMatchObject({ ok: false, code: -32030, data: { reason: "unknown-agent" } });
  });

  it("catches up an offline recipient when it restarts", async () => {
    await bobMcp.close();
    await bob.stop();
    await tool(aliceMcp.client, "send_message", { to: "agent:bob", text: "while you were away" });
    bob = await bob.restart();
    bobMcp = await connect(bob.mcpUrl, bob.runtimeToken);
    const texts = await eventually(async () => {
      const { items } = (await tool(bobMcp.client, "read_inbox", {})) as {
        items: { item: { message: { content: { text: string }[] } } }[];
      };
      const found = items.map((i) => i.item.message.content[0]!.text);
      return found.includes("while you were away") ? found : undefined;
    });
    expect(texts).toContain("while you were away");
  });
});

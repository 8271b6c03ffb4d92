/**
 * The real OpenClaw gateway after its crash-loop breaker trips (research/openclaw.md §9, OpenClaw's
 * docs/gateway/restart-recovery.md): three unclean starts within five minutes, then the channel is
 * started by hand with `openclaw gateway call channels.start`, as OpenClaw's log tells an owner to.
 * The channel must keep working once that short-lived CLI connection has closed, and no item may
 * be acknowledged that no turn answered.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { eventually } from "../../harness/mcp.js";
import { Network, readAll, waitFor, type InboxItem } from "../../harness/network.js";
import { FakeModel } from "./fake-model.js";
import { Gateway } from "./gateway.js";

const textOf = (entry: InboxItem): string =>
  entry.item.kind === "multicast"
    ? (entry.item.message.content as { text?: string }[]).map((p) => p.text ?? "").join("")
    : "";

const SUPPRESSED = "channel autostart suppressed by crash-loop breaker";

describe("the real OpenClaw gateway after its crash-loop breaker", () => {
  let net: Network;
  let model: FakeModel;
  let gateway: Gateway;
  let dir: string;

  beforeAll(async () => {
    net = await Network.start(["alice", "bob"]);
    model = new FakeModel();
    await model.start();
    dir = mkdtempSync(path.join(tmpdir(), "sh-openclaw-breaker-"));
    const bob = net.agent("bob").daemon;
    gateway = await Gateway.start({
      host: inject("openclawHost"),
      tarball: inject("openclawPluginTarball"),
      dir,
      modelBaseUrl: model.baseUrl,
      channel: { endpoint: bob.mcpUrl, tokenFile: path.join(bob.dataDir, "runtime.token") },
    });
  }, 420_000);

  afterAll(async () => {
    if (process.env.OPENCLAW_GATEWAY_LOG !== undefined) writeFileSync(process.env.OPENCLAW_GATEWAY_LOG, gateway.log());
    await gateway?.stop();
    await model?.stop();
    await net?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("answers through a channel started by hand with channels.start once the breaker suppressed it", async () => {
    for (let crash = 1; crash < 3; crash += 1) {
      await gateway.crash();
      await gateway.boot();
    }
    await gateway.crash();
    const from = gateway.log().length;
    await gateway.boot(SUPPRESSED);
    expect(gateway.log().slice(from)).not.toContain("connected to the Social Harness daemon");

    const started = gateway.log().length;
    await gateway.cli(["gateway", "call", "channels.start", "--params", '{"channel":"social-harness"}']);
    await gateway.waitForOutput("connected to the Social Harness daemon", 60_000, started);

    model.on("ping-after-breaker", { tool: { action: "reply", message: "pong-after-breaker" } });
    await net.send("alice", "agent:bob", "ping-after-breaker");
    await waitFor(net.agent("alice"), (e) => textOf(e) === "pong-after-breaker", 1, 120_000);
    await eventually(
      async () => ((await readAll(net.agent("bob"))).length === 0 ? true : undefined),
      60_000,
      "bob's inbox to empty",
    );
    expect(gateway.log().slice(started)).not.toContain("Gateway client authority closed");
  }, 900_000);
});

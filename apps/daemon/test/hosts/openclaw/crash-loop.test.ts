/**
 * The README's OpenClaw walk-through on the real gateway, exactly as written (its config, install,
 * channel section and run command are read from README.md), and then the crash-loop breaker
 * (OpenClaw's docs/gateway/restart-recovery.md): three unclean starts within five minutes, then the
 * channel started by hand with `openclaw gateway call channels.start`, as OpenClaw's log tells an
 * owner to. The channel must keep working once that short-lived CLI connection has closed.
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

describe("the README's OpenClaw walk-through, then the crash-loop breaker, on the real gateway", () => {
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
    gateway = await Gateway.fromReadme({
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

  it("works as the README says: the install exits 0, the channel logs that it is up, and a message gets its answer", async () => {
    expect(gateway.installedConfig).toMatchObject({ plugins: { entries: { "social-harness": { enabled: true } } } });
    expect(gateway.log()).toContain(`connected to the Social Harness daemon at ${net.agent("bob").daemon.mcpUrl}`);
    model.on("ping-walkthrough", { tool: { action: "reply", message: "pong-walkthrough" } });
    await net.send("alice", "agent:bob", "ping-walkthrough");
    await waitFor(net.agent("alice"), (e) => textOf(e) === "pong-walkthrough", 1, 120_000);
    expect(gateway.log()).not.toContain("cannot see a turn end");
  });

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

/**
 * Host qualification of the OpenClaw plugin against real daemons, with OpenClaw's host side as
 * the plugin's recorded contract (packages/openclaw/src/testing/contract-host.ts). The real
 * gateway runs the same plugin in apps/daemon/test/hosts/openclaw/gateway.test.ts.
 */
import { ContractHost } from "../../../../packages/openclaw/src/testing/contract-host.js";
import type { InboundContext } from "../../../../packages/openclaw/src/sdk.js";
import { qualifyHost, type AttachedHost, type NativeInbound } from "./qualification.js";

function nativeOf(ctx: InboundContext): NativeInbound {
  return {
    conversation: ctx.To,
    chatType: ctx.ChatType,
    sender: ctx.From,
    ...(ctx.GroupMembers === undefined ? {} : { members: ctx.GroupMembers.split(", ") }),
    text: ctx.Body,
    bytes: JSON.stringify(ctx),
  };
}

qualifyHost({
  name: "OpenClaw plugin (the recorded OpenClaw host contract)",
  attach: ({ mcpUrl, tokenFile }) => {
    const host = new ContractHost({ channel: { endpoint: mcpUrl, tokenFile }, restartDelayMs: 200 });
    const calls: NativeInbound[] = [];
    let failing = 0;
    let held: { reached: () => void; released: Promise<void> } | undefined;
    host.behaviour = async (_params, ctx) => {
      calls.push(nativeOf(ctx));
      if (held !== undefined) {
        const { reached, released } = held;
        held = undefined;
        reached();
        await released;
      }
      if (failing > 0) {
        failing -= 1;
        throw new Error("the agent run failed before it could start");
      }
    };
    host.start();
    const attached: AttachedHost = {
      calls,
      failures: host.failures,
      failCallbacks: (count) => (failing += count),
      holdNextCallback: () => {
        let reached!: () => void;
        let release!: () => void;
        const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
        const released = new Promise<void>((resolve) => (release = resolve));
        held = { reached, released };
        return { reached: reachedPromise, release };
      },
      send: async (to, text) => {
        await host.action("send", { to, target: to, message: text });
      },
      detach: () => host.stop(),
    };
    return Promise.resolve(attached);
  },
});

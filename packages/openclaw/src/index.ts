/**
 * @social-harness/openclaw: the OpenClaw channel plugin entry. OpenClaw loads this module
 * (`openclaw.extensions`), calls `register(api)`, and the plugin registers the `social-harness`
 * channel bound to the runtime OpenClaw hands it.
 */
import { createChannelPlugin } from "./channel.js";
import { CHANNEL_ID } from "./config.js";
import { captureGatewayContext, type GatewayContext } from "./detach.js";
import type { OpenClawPluginApi, PluginRuntime } from "./sdk.js";
import { Turns } from "./turns.js";

export { createChannelPlugin } from "./channel.js";
export { ACCOUNT_ID, CHANNEL_ID, resolveAccount, type Account } from "./config.js";
export { inboundContext } from "./inbound.js";
export { renderDelivery, type RenderedItem } from "./render.js";
export { sendText, type SendOutcome } from "./send.js";
export type * from "./sdk.js";

let runtime: PluginRuntime | undefined;
let turns: Turns | undefined;
let gatewayContext: GatewayContext | undefined;
const plugin = createChannelPlugin(
  () => {
    if (runtime === undefined) throw new Error("the social-harness channel started before OpenClaw registered it");
    return runtime;
  },
  { turns: () => turns, gatewayContext: () => gatewayContext },
);

/** The plugin entry OpenClaw loads. */
const entry = {
  id: CHANNEL_ID,
  name: "Social Harness",
  description: "Certified messages between AI agents through a Social Harness daemon.",
  configSchema: { type: "object", additionalProperties: false, properties: {} },
  register(api: OpenClawPluginApi): void {
    // Metadata-only loads (help, discovery of CLI commands) register nothing.
    if (api.registrationMode === "cli-metadata" || api.registrationMode === "tool-discovery") return;
    api.registerChannel({ plugin });
    runtime = api.runtime;
    gatewayContext = captureGatewayContext();
    if (api.on !== undefined) {
      const watched = new Turns();
      api.on("after_tool_call", (event, ctx) => watched.toolCalled(event, ctx));
      api.on("agent_end", (_event, ctx) => watched.agentEnded(ctx));
      turns = watched;
    }
  },
  channelPlugin: plugin,
};

export default entry;

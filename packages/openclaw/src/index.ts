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

// OpenClaw may register the plugin more than once (one registry per generation) and may load this
// module more than once; the hooks of every registration and the running account must share one
// view of the turns, so it lives on the process.
const TURNS = Symbol.for("@social-harness/openclaw/turns");
function sharedTurns(): Turns {
  const slot = globalThis as { [TURNS]?: Turns };
  return (slot[TURNS] ??= new Turns());
}
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
    // The first registration is the gateway's boot; a later one may run inside a client's request.
    gatewayContext ??= captureGatewayContext();
    if (api.on !== undefined) {
      const watched = sharedTurns();
      api.on("after_tool_call", (event, ctx) => watched.toolCalled(event, ctx));
      api.on("agent_end", (_event, ctx) => watched.agentEnded(ctx));
      turns = watched;
    }
  },
  channelPlugin: plugin,
};

export default entry;

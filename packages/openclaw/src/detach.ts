/**
 * A channel account runs outside the request of whoever started it. OpenClaw runs an account that
 * `openclaw gateway call channels.start` started (the crash-loop breaker's manual override) inside
 * that CLI connection's request scope, and once the CLI has gone every message tool call of the
 * agent fails with "Gateway client authority closed before dispatching message.action". The plugin
 * keeps the async context OpenClaw registered it in, the gateway's own, and runs such an account there.
 */
import { AsyncLocalStorage } from "node:async_hooks";

type RequestScope = { readonly client?: unknown } | undefined;

// Read at run time from the host the plugin is loaded into, never bundled.
const PLUGIN_RUNTIME_SDK = "openclaw/plugin-sdk/plugin-runtime";

/** Runs `run` in the context captured when the plugin was registered. */
export type GatewayContext = <R>(run: () => R) => R;

/** The context of the current call (OpenClaw calls `register` while the gateway boots). */
export function captureGatewayContext(): GatewayContext {
  const snapshot = AsyncLocalStorage.snapshot();
  return (run) => snapshot(run);
}

/** Whether the current call runs inside a connected client's gateway request. */
export async function inClientRequest(): Promise<boolean> {
  try {
    const sdk = (await import(PLUGIN_RUNTIME_SDK)) as { getPluginRuntimeGatewayRequestScope?: () => RequestScope };
    return sdk.getPluginRuntimeGatewayRequestScope?.()?.client !== undefined;
  } catch {
    // Outside an OpenClaw gateway (the plugin's own tests) there is no request scope.
    return false;
  }
}

/**
 * Runs once when the console's server starts: validates the environment, so a misconfigured
 * console fails at start rather than serving errors. NEXT_RUNTIME is Next's build constant, not
 * configuration; it keeps the Node-only check out of any Edge bundle.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { exitOnInvalidEnv } = await import("./server/env");
    exitOnInvalidEnv();
  }
}

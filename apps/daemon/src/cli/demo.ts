/** Placeholder until the demo lands. */
export function runDemoCommand(_argv: readonly string[]): Promise<void> {
  return Promise.reject(new Error("demo is not available in this build"));
}

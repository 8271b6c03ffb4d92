/** Placeholder until the history export lands. */
export function runHistoryCommand(_argv: readonly string[]): Promise<void> {
  return Promise.reject(new Error("history export is not available in this build"));
}

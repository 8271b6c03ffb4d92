/**
 * `SOCIAL_HARNESS_ANATOMY=1` with `SOCIAL_HARNESS_ANATOMY_FILE=<file>`: a debug switch that makes a
 * router or daemon append monotonic timestamps of its hops to <file> (the bench's latency anatomy,
 * docs/performance.md). The only place these variables are read.
 */
import { enableAnatomy } from "@social-harness/protocol";

export function anatomyFromEnvironment(label: string, env: NodeJS.ProcessEnv = process.env): void {
  const file = env.SOCIAL_HARNESS_ANATOMY_FILE;
  if (env.SOCIAL_HARNESS_ANATOMY !== "1" || file === undefined || file === "") return;
  enableAnatomy({ file, label });
}

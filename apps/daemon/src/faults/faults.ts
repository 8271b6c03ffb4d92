/**
 * Test-only fault points: a test names a point with `--test-fault <point>`, and the daemon fails
 * there as a real fault would. The composition root wraps the ports below only when the
 * environment says the process is a test (SOCIAL_HARNESS_TEST_FAULTS=1), so the production send
 * path has no test branch, and a production start with a fault point is refused.
 */
import type { BindIntents } from "../posts/posts.service.js";
import type { MulticastSender, SendResult, TextSender } from "../posts/semantic-send.js";

export const FAULT_POINTS = [
  /** The intent's transaction committed, then the store reports a failure. */
  "intent-after-commit",
  /** A send ends with an error that is not one of the closed failures. */
  "send-untyped-error",
  /** A send completes with a result that fails the tool's output schema. */
  "send-invalid-result",
] as const;

export type FaultPoint = (typeof FAULT_POINTS)[number];

export const TEST_FAULTS_ENV = "SOCIAL_HARNESS_TEST_FAULTS";

export class InjectedFault extends Error {
  override readonly name = "InjectedFault";
  constructor(readonly point: FaultPoint) {
    super(`injected fault at ${point}`);
  }
}

/** The armed points, or none; refuses points unless the environment marks the process a test. */
export function armedFaults(points: readonly FaultPoint[] | undefined, env = process.env): ReadonlySet<FaultPoint> {
  if (points === undefined || points.length === 0) return new Set();
  if (env[TEST_FAULTS_ENV] !== "1")
    throw new Error(`test fault points need ${TEST_FAULTS_ENV}=1; this start refuses ${points.join(", ")}`);
  return new Set(points);
}

export function wrapBindIntents(armed: ReadonlySet<FaultPoint>, bind: BindIntents): BindIntents {
  if (!armed.has("intent-after-commit")) return bind;
  return async (...args) => {
    const bound = await bind(...args);
    // The commit happened; the store then reports a failure, so the outcome is unknown.
    return bound.outcome === "bound" ? { outcome: "unknown", cause: new InjectedFault("intent-after-commit") } : bound;
  };
}

export function wrapMulticast(armed: ReadonlySet<FaultPoint>, multicast: MulticastSender): MulticastSender {
  if (!armed.has("send-untyped-error")) return multicast;
  return {
    send: () => Promise.reject(new InjectedFault("send-untyped-error")),
  };
}

export function wrapTextSender(armed: ReadonlySet<FaultPoint>, sender: TextSender): TextSender {
  if (!armed.has("send-invalid-result")) return sender;
  return {
    async sendText(...args) {
      await sender.sendText(...args);
      return { operationId: 42 } as unknown as SendResult;
    },
  };
}

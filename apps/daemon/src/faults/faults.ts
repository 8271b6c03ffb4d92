/**
 * Test-only fault points: a test names a point with `--test-fault <point>`, and the daemon fails
 * there as a real fault would. The command line accepts the option only when the environment says
 * the process is a test (apps/cli refuses it otherwise), so a production start never has one.
 */
export const FAULT_POINTS = [
  /** The intent's transaction committed, then the store reports a failure. */
  "intent-after-commit",
  /** A send ends with an error that is not one of the closed failures. */
  "send-untyped-error",
  /** A send completes with a result that fails the tool's output schema. */
  "send-invalid-result",
] as const;

export type FaultPoint = (typeof FAULT_POINTS)[number];

export class InjectedFault extends Error {
  override readonly name = "InjectedFault";
  constructor(readonly point: FaultPoint) {
    super(`injected fault at ${point}`);
  }
}

export class Faults {
  private readonly points: ReadonlySet<FaultPoint>;

  constructor(points: readonly FaultPoint[] = []) {
    this.points = new Set(points);
  }

  has(point: FaultPoint): boolean {
    return this.points.has(point);
  }

  /** Throws InjectedFault when the test named this point. */
  at(point: FaultPoint): void {
    if (this.points.has(point)) throw new InjectedFault(point);
  }
}

/**
 * When the webhook delivery engine tries again (seed 000 "Webhook consumer"): capped, jittered
 * exponential backoff, suspension after at least 100 attempts spanning an hour, and the clock the
 * engine reads and sleeps on.
 */

/** Retry and suspension parameters; tests shorten the times, never the attempt count. */
export interface DeliverySchedule {
  /** First retry delay before jitter (default 1 s). */
  readonly retryBaseMs: number;
  /** Largest retry delay (at most 60 s). */
  readonly retryCapMs: number;
  /** Suspend after this many failed attempts... */
  readonly suspendAttempts: number;
  /** ...spanning at least this long (default one hour). */
  readonly suspendWindowMs: number;
  /** Deadline of one attempt, connection to status line. */
  readonly attemptTimeoutMs: number;
}

export const DEFAULT_SCHEDULE: DeliverySchedule = {
  retryBaseMs: 1_000,
  retryCapMs: 60_000,
  suspendAttempts: 100,
  suspendWindowMs: 60 * 60 * 1000,
  attemptTimeoutMs: 10_000,
};

/** The defaults with every option that is set (an option given as undefined keeps its default). */
export function scheduleOf(options: Partial<DeliverySchedule> = {}): DeliverySchedule {
  const set = Object.entries(options).filter(([, value]) => value !== undefined);
  return { ...DEFAULT_SCHEDULE, ...(Object.fromEntries(set) as Partial<DeliverySchedule>) };
}

/** Time as the engine sees it; tests pass a clock whose sleep advances time at once. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or early (without rejecting) when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      }
      signal.addEventListener("abort", done);
    }),
};

/** The delay before retry number `attempts` (1-based): equal jitter over a capped doubling. */
export function retryDelayMs(attempts: number, schedule: DeliverySchedule, random: () => number): number {
  const ceiling = Math.min(schedule.retryCapMs, schedule.retryBaseMs * 2 ** Math.min(attempts - 1, 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

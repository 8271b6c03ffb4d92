/**
 * Where a blocking durable commit (its fsync) runs: on the event loop, which costs the least CPU
 * and latency while the disk answers quickly (no hand-off to a thread and back, some 50-75 µs of
 * CPU on the development VM), or on another thread once the disk is slow, so that a slow disk never
 * stalls every request behind it. The median of the last commits timed on the loop decides, with
 * hysteresis; while commits run on a thread, one in PROBE_EVERY still runs on the loop, to time the
 * disk again.
 */
export type CommitPlace = "loop" | "thread";

/** Commits leave the loop when the median of the last SAMPLES passes this. */
export const LEAVE_LOOP_MS = 10;
/** …and come back when it falls under this. */
export const RETURN_TO_LOOP_MS = 3;
const SAMPLES = 15;
const PROBE_EVERY = 32;

export interface CommitPlacementOptions {
  readonly start?: CommitPlace;
  /** The medians that move commits off the loop and back (LEAVE_LOOP_MS, RETURN_TO_LOOP_MS by default). */
  readonly leaveMs?: number;
  readonly returnMs?: number;
  /** Told when commits move, with the median that moved them. */
  readonly onMove?: (to: CommitPlace, medianMs: number) => void;
}

export class CommitPlacement {
  private place: CommitPlace;
  private readonly durations: number[] = [];
  private offLoop = 0;

  constructor(private readonly options: CommitPlacementOptions = {}) {
    this.place = options.start ?? "loop";
  }

  /** Where commits run now (a probe aside). */
  get current(): CommitPlace {
    return this.place;
  }

  /** Where the next commit runs: here, or on the loop when it is a probe's turn. */
  next(): CommitPlace {
    if (this.place === "loop") return "loop";
    return ++this.offLoop % PROBE_EVERY === 0 ? "loop" : "thread";
  }

  /** Notes how long a commit took on the loop; a full window of them may move the next ones. */
  timed(ms: number): void {
    this.durations.push(ms);
    if (this.durations.length < SAMPLES) return;
    const median = [...this.durations].sort((a, b) => a - b)[SAMPLES >> 1]!;
    this.durations.length = 0;
    const leave = this.options.leaveMs ?? LEAVE_LOOP_MS;
    const back = this.options.returnMs ?? RETURN_TO_LOOP_MS;
    const to = median > leave ? "thread" : median < back ? "loop" : this.place;
    if (to === this.place) return;
    this.place = to;
    this.options.onMove?.(to, median);
  }
}

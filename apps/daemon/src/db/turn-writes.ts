/**
 * The hot path's writes of one turn of the event loop in one transaction: a write is queued with
 * the turn's others and runs at the turn's end (setImmediate) inside one BEGIN … COMMIT of
 * prepared statements, so that the sends of one turn share a commit, its lock calls and the WAL
 * pages they touch, and then one fsync. A batch with a durable write counts as one durable commit.
 * If the batch fails, each write runs again in a transaction of its own, so that one failing write
 * never fails the others; each caller learns its own write's outcome.
 */
import type { HeldStatements } from "./raw-statements.js";

/** Runs one transaction of prepared statements (database.ts heldTransaction). */
export type Transact = <T>(durable: boolean, fn: (held: HeldStatements) => T) => Promise<T>;

interface Queued {
  readonly durable: boolean;
  readonly write: (held: HeldStatements) => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export class TurnWrites {
  private queue: Queued[] = [];
  /** Batches commit one after another, in the order of their turns. */
  private committing: Promise<void> = Promise.resolve();

  constructor(
    private readonly transact: Transact,
    /** After a durable batch committed: its fsync may run now, in the same turn (WalSync.syncNow). */
    private readonly committedDurable: () => void = () => undefined,
  ) {}

  /** Queues `write` for the end of this turn; resolves with what it returned once its commit returned. */
  write<T>(commit: "durable" | "relaxed", write: (held: HeldStatements) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.queue.length === 0) setImmediate(() => this.flush());
      this.queue.push({ durable: commit === "durable", write, resolve, reject });
    });
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    this.committing = this.committing.then(() => this.commit(batch));
  }

  private async commit(batch: Queued[]): Promise<void> {
    if (batch.length === 1) return this.alone(batch[0]!);
    const durable = batch.some((w) => w.durable);
    let values: unknown[];
    try {
      values = await this.transact(durable, (held) => batch.map((w) => w.write(held)));
    } catch {
      for (const queued of batch) await this.alone(queued);
      return;
    }
    if (durable) this.committedDurable();
    batch.forEach((queued, i) => queued.resolve(values[i]));
  }

  private async alone(queued: Queued): Promise<void> {
    try {
      const value = await this.transact(queued.durable, queued.write);
      if (queued.durable) this.committedDurable();
      queued.resolve(value);
    } catch (error) {
      queued.reject(error);
    }
  }
}

/**
 * Group commit for the daemon's WAL. Commits run at synchronous=NORMAL (a write into the WAL, no
 * fsync); a commit the daemon promises durable counts as pending until an fdatasync of the WAL file
 * that started after it has returned. Callers await `durable()` before anything that relies on the
 * promise leaves the process, and one fdatasync covers every commit made before it ran.
 *
 * The fdatasync runs where it costs least (CommitPlacement): on the event loop at the end of the
 * turn while the disk is fast, on libuv's thread pool while it is slow.
 */
import { close, fdatasync, fdatasyncSync, openSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import type Database from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";
import { CommitPlacement, type CommitPlace, type CommitPlacementOptions } from "@social-harness/sqlite";

export class WalSync {
  /** Durable commits made so far, and the newest of them known to be on disk. */
  private committed = 0;
  private synced = 0;
  private relaxedDepth = 0;
  /** Set inside `relaxed` by `mustSurvive`: the transaction open there commits durably after all. */
  private promoted = false;
  /** The fsync scheduled or running: it covers every commit made before it starts. */
  private running: Promise<void> | undefined;
  private failure: Error | undefined;
  /** The WAL file's descriptor, opened at the first fsync. */
  private fd: number | undefined;
  private readonly placement: CommitPlacement;
  /** Whether the open transaction wrote: a read-only transaction's COMMIT needs no fsync. */
  transactionWrote = false;
  /** fsyncs done, for measurements and tests. */
  fsyncs = 0;
  /** Transactions rolled back so far: what a cache of committed state drops itself on (History's tips). */
  rollbacks = 0;

  constructor(
    private readonly walFile: string,
    placement: CommitPlacementOptions = {},
  ) {
    this.placement = new CommitPlacement(placement);
  }

  /** Where fsyncs run now: on the event loop, or on the thread pool. */
  get place(): CommitPlace {
    return this.placement.current;
  }

  /** Counts one commit; inside `relaxed`, commits need no fsync unless `durable` or `mustSurvive` says so. */
  committedOne(durable = false): void {
    if (durable || this.relaxedDepth === 0 || this.promoted) this.committed++;
    this.promoted = false;
  }

  /** Runs `fn` with its commits counted as relaxed (the caller holds the only connection). */
  async relaxed<T>(fn: () => Promise<T>): Promise<T> {
    this.relaxedDepth++;
    try {
      return await fn();
    } finally {
      this.relaxedDepth--;
      if (this.relaxedDepth === 0) this.promoted = false;
    }
  }

  /**
   * Inside `relaxed`, before the open transaction commits: its commit counts as durable after all,
   * because its body found that it binds what a power loss must not undo.
   */
  mustSurvive(): void {
    if (this.relaxedDepth > 0) this.promoted = true;
  }

  /**
   * Resolves once every durable commit made before the call is on disk. A failed fsync fails this
   * and every later call: after one, the kernel may have dropped the pages it could not write, so a
   * later fsync that succeeds proves nothing about them (the daemon must restart and recover).
   */
  async durable(): Promise<void> {
    const target = this.committed;
    while (this.synced < target) {
      if (this.failure !== undefined) throw this.failure;
      this.running ??= this.sync().then(
        () => {
          this.running = undefined;
        },
        (error: unknown) => {
          this.running = undefined;
          this.failure = asError(error);
          throw this.failure;
        },
      );
      await this.running;
    }
  }

  /**
   * Makes sure the commits so far will be synced without anyone waiting yet (a bound intent, before
   * its proposal is signed). Its failure reaches every `durable()` after it.
   */
  start(): void {
    if (this.running === undefined && this.synced < this.committed && this.failure === undefined)
      this.durable().catch(() => undefined);
  }

  /**
   * Syncs now, on the loop, what was committed so far, when fsyncs run on the loop and none is
   * running: a turn's batch of writes (db/turn-writes.ts) is made durable in the same turn.
   * Otherwise the sync scheduled by `durable()` or `start()` covers it.
   */
  syncNow(): void {
    if (this.running !== undefined || this.synced >= this.committed || this.failure !== undefined) return;
    if (this.placement.current !== "loop") return this.start();
    try {
      this.syncOnLoop();
    } catch (error) {
      this.failure = asError(error);
    }
  }

  /**
   * One fdatasync of the WAL, covering what was committed when it starts: at the end of the turn
   * (setImmediate), so that every commit of the turn shares it, on the loop or on the thread pool.
   */
  private sync(): Promise<void> {
    return new Promise((resolve, reject) => {
      setImmediate(() => {
        if (this.synced >= this.committed) return resolve();
        try {
          if (this.placement.next() === "thread") {
            const upTo = this.committed;
            fdatasync(this.walFd(), (error) => {
              if (error !== null) return reject(error);
              this.done(upTo);
              resolve();
            });
            return;
          }
          this.syncOnLoop();
        } catch (error) {
          return reject(asError(error));
        }
        resolve();
      });
    });
  }

  private syncOnLoop(): void {
    const upTo = this.committed;
    const started = performance.now();
    fdatasyncSync(this.walFd());
    this.placement.timed(performance.now() - started);
    this.done(upTo);
  }

  private walFd(): number {
    this.fd ??= openSync(this.walFile, "r");
    return this.fd;
  }

  private done(upTo: number): void {
    this.synced = Math.max(this.synced, upTo);
    this.fsyncs++;
  }

  async close(): Promise<void> {
    await this.durable();
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) await closeFile(fd);
  }
}

const closeFile = promisify(close);

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/**
 * Wraps Kysely's better-sqlite3 handle so that each COMMIT, and each write outside a transaction
 * (its own commit), is counted by `sync`. Reads and statements inside a transaction pass through.
 */
const CONTROL = /^\s*(begin|rollback|pragma)/i;

export function countingCommits(inner: SqliteDatabase, sqlite: Database.Database, sync: WalSync): SqliteDatabase {
  const wrapped = new Map<SqliteStatement, SqliteStatement>();
  return {
    close: () => inner.close(),
    prepare(sql: string) {
      const statement = inner.prepare(sql);
      // `readonly` is better-sqlite3's own flag; an INSERT … RETURNING is a reader that writes.
      const writes = !(statement as Partial<Database.Statement>).readonly;
      if (sqlite.inTransaction && writes && sql !== "commit") sync.transactionWrote = true;
      const commits = sql === "commit" ? sync.transactionWrote : writes && !sqlite.inTransaction && !CONTROL.test(sql);
      if (sql === "commit" || sql === "rollback") sync.transactionWrote = false;
      if (sql === "rollback") sync.rollbacks++;
      if (!commits) return statement;
      let counted = wrapped.get(statement);
      if (counted === undefined) {
        counted = {
          reader: statement.reader,
          all: (parameters) => {
            const rows = statement.all(parameters);
            sync.committedOne();
            return rows;
          },
          iterate: (parameters) => statement.iterate(parameters),
          run: (parameters) => {
            const result = statement.run(parameters);
            sync.committedOne();
            return result;
          },
        };
        if (wrapped.size < 512) wrapped.set(statement, counted);
      }
      return counted;
    },
  };
}

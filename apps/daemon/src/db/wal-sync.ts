/**
 * Group commit for the daemon's WAL, off the event loop. Commits run at synchronous=NORMAL (a
 * write into the WAL, no fsync); a commit the daemon promises durable counts as pending until an
 * fsync of the WAL file that started after it completes on libuv's thread pool. Callers await
 * `durable()` before anything that relies on the promise leaves the process, and one fsync covers
 * every commit made while the one before it ran.
 */
import { close, fsync, open } from "node:fs";
import { promisify } from "node:util";
import type Database from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";

export class WalSync {
  /** Durable commits made so far, and the newest of them known to be on disk. */
  private committed = 0;
  private synced = 0;
  private relaxedDepth = 0;
  private running: Promise<void> | undefined;
  private failure: Error | undefined;
  /** The WAL file's descriptor, opened at the first fsync. */
  private fd: Promise<number> | undefined;
  /** Whether the open transaction wrote: a read-only transaction's COMMIT needs no fsync. */
  transactionWrote = false;
  /** fsyncs done, for measurements and tests. */
  fsyncs = 0;

  constructor(private readonly walFile: string) {}

  /** Counts one commit; inside `relaxed`, commits need no fsync unless `durable` says so. */
  committedOne(durable = false): void {
    if (durable || this.relaxedDepth === 0) this.committed++;
  }

  /** Runs `fn` with its commits counted as relaxed (the caller holds the only connection). */
  async relaxed<T>(fn: () => Promise<T>): Promise<T> {
    this.relaxedDepth++;
    try {
      return await fn();
    } finally {
      this.relaxedDepth--;
    }
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
      if (this.running === undefined) {
        const upTo = this.committed;
        this.running = this.fsync().then(
          () => {
            this.synced = Math.max(this.synced, upTo);
            this.running = undefined;
          },
          (error: unknown) => {
            this.running = undefined;
            this.failure = error instanceof Error ? error : new Error(String(error));
            throw this.failure;
          },
        );
      }
      await this.running;
    }
  }

  /**
   * Starts the fsync for the commits made so far without waiting for it, so that work done
   * before the caller's `durable()` (signing a proposal) overlaps the disk. Its failure reaches
   * every `durable()` after it.
   */
  start(): void {
    if (this.running === undefined && this.synced < this.committed && this.failure === undefined)
      this.durable().catch(() => undefined);
  }

  /**
   * One fsync of the WAL on the thread pool, through the callback API: fs/promises' FileHandle
   * costs some 20 µs more CPU a call (a promise-backed request, its bookkeeping).
   */
  private async fsync(): Promise<void> {
    this.fd ??= openFile(this.walFile, "r");
    await fsyncFile(await this.fd);
    this.fsyncs++;
  }

  async close(): Promise<void> {
    await this.durable();
    const opened = this.fd;
    this.fd = undefined;
    if (opened !== undefined) await closeFile(await opened);
  }
}

const openFile = promisify(open);
const fsyncFile = promisify(fsync);
const closeFile = promisify(close);

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

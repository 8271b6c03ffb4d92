/**
 * Where a group commit runs. On PostgreSQL, in this process: its I/O is asynchronous already. On
 * SQLite, on the event loop with a connection of its own, while the disk is fast: better-sqlite3
 * blocks while it writes and fsyncs, which costs less CPU and latency than handing each batch to a
 * thread and back; once commits prove slow, batches move to a writer thread for good, so a slow disk
 * never stops the router from reading and verifying the next proposals. Either way an outcome is
 * answered only after its transaction has committed.
 */
import { existsSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { encodeSignatureList, hop, ownBuffer, type AnatomyOptions, type SigningKey } from "@social-harness/protocol";
import { CommitPlacement, type CommitPlace, type CommitPlacementOptions } from "@social-harness/sqlite";
import type { Kysely } from "kysely";
import { openSqliteConnection, type RouterDatabase } from "../db/database.js";
import type { AppendOutcome, HeadCommit } from "./append.service.js";
import { commitBatch, type BatchEnv } from "./commit-batch.js";
import type { StoredRecord } from "./conversations.store.js";
import { sqliteCommitter, type WireCommit, type WireOutcome } from "./sqlite-commit.js";

/** Where a batch commits: the event loop or the writer thread (SQLite), or a pool connection (PostgreSQL). */
export type BatchPlace = CommitPlace | "pool";

export interface BatchWriter {
  /** How many batches may be written at once. */
  readonly concurrency: number;
  /** Where the batch handed to `write` last commits (read right after the call). */
  readonly lastPlace: BatchPlace;
  /** Certifies the batch in one transaction and resolves once it is durable. */
  write(inputs: readonly HeadCommit[]): Promise<AppendOutcome[]>;
  close(): Promise<void>;
}

/**
 * PostgreSQL: batches run on pool connections side by side. Batches that touch one conversation
 * wait for each other on its head's row lock (taken in conversation order, so never a deadlock
 * between two batches' lockHeads); the others commit together, sharing the server's WAL flushes.
 */
const POSTGRES_BATCHES_IN_FLIGHT = 4;

export function inProcessWriter(db: Kysely<RouterDatabase>, env: BatchEnv): BatchWriter {
  return {
    concurrency: env.dialect === "postgres" ? POSTGRES_BATCHES_IN_FLIGHT : 1,
    lastPlace: env.dialect === "postgres" ? "pool" : "loop",
    write: (inputs) => db.transaction().execute((trx) => commitBatch(trx, env, inputs)),
    close: () => Promise.resolve(),
  };
}

/** What the writer thread is sent: a batch, or the request to close its connection. */
export type WriterRequest =
  { readonly id: number; readonly inputs: WireCommit[]; readonly forget?: true } | { readonly close: true };

/** What the writer thread answers for one batch; an error keeps the fields isRetryable reads. */
export type WriterReply =
  | { readonly id: number; readonly outcomes: WireOutcome[] }
  | { readonly id: number; readonly error: { name: string; message: string; code?: unknown } };

export interface WriterData {
  readonly file: string;
  readonly seed: Uint8Array;
  /** The latency anatomy's options when it is recording, so the thread records its hops too. */
  readonly anatomy?: AnatomyOptions;
}

/**
 * The compiled worker module. Under Vitest this module runs from its TypeScript source, which a
 * worker thread cannot load; the worker then comes from the build (`npm run build:node`).
 */
function workerUrl(): URL {
  const url = new URL("./append-writer.worker.js", import.meta.url);
  if (existsSync(fileURLToPath(url))) return url;
  return new URL(url.href.replace(/\/src\/conversations\/([^/]+)$/, "/dist/conversations/$1"));
}

/** A batch as the committer takes it: the signature lists encoded once, here. */
function wireOf(input: HeadCommit): WireCommit {
  return {
    conv: input.conv,
    bytes: input.bytes,
    hash: input.hash,
    prev: input.prev,
    author: input.author,
    postId: input.postId,
    signatures: encodeSignatureList(input.signatures),
    ...(input.createMembers === undefined ? {} : { createMembers: input.createMembers }),
  };
}

/**
 * The same, bound for the writer thread: bytes carved from a shared buffer (a frame's, or the
 * protocol's byte slab) are copied out first, since postMessage clones a view's whole backing
 * buffer.
 */
function threadWireOf(input: HeadCommit): WireCommit {
  const wire = wireOf(input);
  return { ...wire, bytes: ownBuffer(wire.bytes), signatures: ownBuffer(wire.signatures) };
}

/** The outcome of one append from the thread's answer; a new record is rebuilt from its input. */
function outcomeOf(input: WireCommit, wire: WireOutcome): AppendOutcome {
  switch (wire.k) {
    case "new": {
      const { conv, hash, bytes, signatures } = input;
      const record: StoredRecord = { conv, seq: wire.seq, hash, bytes, signatures, certificate: wire.certificate };
      return { kind: "certified", record, existed: false, differs: false };
    }
    case "existed":
      return { kind: "certified", record: wire.record, existed: true, differs: wire.record.hash !== input.hash };
    case "head-moved":
      return { kind: "head-moved", conv: wire.conv, head: wire.head };
    case "no-conversation":
      return { kind: "refused", reason: "no-conversation", detail: `${wire.conv} has no genesis yet` };
  }
}

export interface SqliteWriterOptions {
  readonly file: string;
  readonly routerKey: SigningKey;
  readonly now: () => number;
  /** The latency anatomy's options when it is recording, for the writer thread's hops. */
  readonly anatomy?: AnatomyOptions;
  /** Where batches start, the medians that move them, and who is told (CommitPlacement). */
  readonly placement?: CommitPlacementOptions;
}

/**
 * The SQLite writer: batches commit on the event loop while the disk is fast and on a writer thread
 * (started at the first move, kept) while it is slow. Batches run one at a time, so the two
 * connections never commit at once; the side a batch moves to forgets its cached heads first.
 */
export function sqliteWriter(options: SqliteWriterOptions): BatchWriter & { readonly place: CommitPlace } {
  const sqlite = openSqliteConnection(options.file);
  const committer = sqliteCommitter(sqlite, options.routerKey, options.now);
  const placement = new CommitPlacement(options.placement);
  let thread: Promise<ThreadWriter> | undefined;
  let last: CommitPlace = "loop";
  return {
    concurrency: 1,
    get place() {
      return placement.current;
    },
    get lastPlace() {
      return last;
    },
    write(inputs) {
      const here = placement.next();
      const moved = here !== last;
      last = here;
      if (here === "thread") {
        thread ??= startSqliteWriter({ file: options.file, seed: options.routerKey.seed, anatomy: options.anatomy });
        return thread.then((writer) => writer.write(inputs, moved));
      }
      const wire = inputs.map(wireOf);
      let outcomes: WireOutcome[];
      try {
        if (moved) committer.forget();
        const started = performance.now();
        outcomes = committer.commit(wire);
        hop("router.writer-committed");
        placement.timed(performance.now() - started);
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      return Promise.resolve(outcomes.map((outcome, i) => outcomeOf(wire[i]!, outcome)));
    },
    async close() {
      sqlite.close();
      if (thread !== undefined) await (await thread).close();
    },
  };
}

interface ThreadWriter {
  /** `forget`: the loop's connection committed since the thread last did. */
  write(inputs: readonly HeadCommit[], forget: boolean): Promise<AppendOutcome[]>;
  close(): Promise<void>;
}

/** The writer thread (append-writer.worker.ts): one connection committing each batch it is sent. */
async function startSqliteWriter(data: WriterData): Promise<ThreadWriter> {
  const worker = new Worker(workerUrl(), { workerData: data });
  const waiting = new Map<number, { resolve(o: WireOutcome[]): void; reject(e: unknown): void }>();
  let nextId = 0;
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure = error;
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
  };
  worker.on("message", (reply: WriterReply) => {
    const w = waiting.get(reply.id);
    waiting.delete(reply.id);
    if ("outcomes" in reply) return w?.resolve(reply.outcomes);
    w?.reject(Object.assign(new Error(reply.error.message), { name: reply.error.name, code: reply.error.code }));
  });
  worker.on("error", (error) => fail(new Error("the SQLite writer thread failed", { cause: error })));
  worker.on("exit", (code) => fail(new Error(`the SQLite writer thread exited (${code})`)));
  await new Promise<void>((resolve, reject) => {
    worker.once("online", resolve);
    worker.once("error", reject);
  });
  return {
    write(inputs, forget) {
      if (failure !== undefined) return Promise.reject(failure);
      const id = ++nextId;
      const wire = inputs.map(threadWireOf);
      return new Promise<WireOutcome[]>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, inputs: wire, ...(forget ? { forget: true as const } : {}) } satisfies WriterRequest);
      }).then((outcomes) => outcomes.map((outcome, i) => outcomeOf(wire[i]!, outcome)));
    },
    async close() {
      if (failure !== undefined) return;
      const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
      worker.postMessage({ close: true } satisfies WriterRequest);
      await exited;
    },
  };
}

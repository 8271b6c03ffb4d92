/**
 * Certifying posts (SPEC §5): a proposal is accepted only from a member whose signature verifies
 * over the bytes as they arrived and whose `prev` equals the conversation head. The record is
 * committed durably, given the next sequence number and a durability certificate. A PostId
 * already certified for its author returns the existing certificate, so retries never duplicate.
 */
import { performance } from "node:perf_hooks";
import {
  checkContentSize,
  hop,
  MAX_CONTENT_BYTES,
  readRecord,
  verifyActionSignature,
  type LinkRefusal,
  type RecordFields,
  type SignatureEntry,
  type SigningKey,
} from "@social-harness/protocol";
import type { RouterStore } from "../db/database.js";
import type { RouterBus } from "../bus/bus.js";
import { findAgent } from "../registry/registry.store.js";
import type { BatchPlace, BatchWriter } from "./append-writer.js";
import { BATCH_CONFLICT } from "./commit-batch.js";
import type { StoredRecord } from "./conversations.store.js";

export type AppendOutcome =
  | { readonly kind: "certified"; readonly record: StoredRecord; readonly existed: boolean; readonly differs: boolean }
  | { readonly kind: "head-moved"; readonly conv: string; readonly head: string | null }
  | {
      readonly kind: "refused";
      readonly reason: LinkRefusal;
      readonly detail: string;
      readonly members?: { name: string; reason: string }[];
    };

export interface AppendContext {
  readonly store: RouterStore;
  readonly bus: RouterBus;
  readonly routerKey: SigningKey;
  readonly now: () => number;
  /** Names known to be registered; a withdrawal removes its name (LinkServer.withdraw). */
  readonly knownAgents: Set<string>;
  /** Records committed by this router lately, so pushes rarely read them back. */
  readonly recent: RecentRecords;
}

/** The last few thousand records this router committed, by conversation and sequence number. */
export class RecentRecords {
  private readonly records = new Map<string, StoredRecord>();

  constructor(private readonly capacity = 4096) {}

  add(record: StoredRecord): void {
    this.records.set(`${record.conv}\0${record.seq}`, record);
    if (this.records.size > this.capacity) this.records.delete(this.records.keys().next().value!);
  }

  get(conv: string, seq: number): StoredRecord | undefined {
    return this.records.get(`${conv}\0${seq}`);
  }
}

export interface HeadCommit {
  readonly conv: string;
  readonly bytes: Uint8Array;
  readonly hash: string;
  readonly prev: string | null;
  readonly author: string;
  readonly postId: string;
  readonly signatures: readonly SignatureEntry[];
  readonly createMembers?: readonly string[];
}

function isRetryable(error: unknown): boolean {
  if (error instanceof Error && error.name === BATCH_CONFLICT) return true;
  const code = (error as { code?: unknown }).code;
  const text = `${typeof code === "string" ? code : ""} ${error instanceof Error ? error.message : ""}`;
  // Unique violations (a concurrent append or registration won) and PostgreSQL deadlocks.
  return ["23505", "40P01", "40001", "UNIQUE constraint failed", "SQLITE_CONSTRAINT"].some((marker) =>
    text.includes(marker),
  );
}

/** Told of each durable batch: how many appends it held, how long it took, where it committed. */
export type BatchObserver = (appends: number, seconds: number, place: BatchPlace) => void;

interface Queued {
  readonly input: HeadCommit;
  resolve(outcome: AppendOutcome): void;
  reject(error: unknown): void;
}

/**
 * Group commit: appends that arrive while a batch is being written share the next one, so one
 * durable commit (one fsync on SQLite) certifies many records.
 * A batch starts from setImmediate, after the event loop has read every frame that is waiting, so
 * it holds every proposal that was verified meanwhile. The writer says how many batches may be in
 * flight: one on SQLite (one writer), a few on PostgreSQL, whose row locks on the heads serialise
 * batches that touch the same conversation. If a batch fails, its appends are committed one by one,
 * so one bad append never fails the others.
 */
export class AppendBatcher {
  private queue: Queued[] = [];
  private inFlight = 0;
  private scheduled = false;
  /** Direct conversations known to exist; rows are never deleted, so the set only grows. */
  private readonly knownConversations = new Set<string>();

  constructor(
    private readonly ctx: AppendContext,
    private readonly writer: BatchWriter,
    private readonly observe: BatchObserver = () => undefined,
    private readonly maxBatch = 256,
  ) {}

  commit(input: HeadCommit): Promise<AppendOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.inFlight >= this.writer.concurrency || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.inFlight < this.writer.concurrency && this.queue.length > 0) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.inFlight++;
    try {
      await this.commitBatch(this.queue.splice(0, this.maxBatch));
    } finally {
      this.inFlight--;
      if (this.queue.length > 0) this.schedule();
    }
  }

  private async commitBatch(batch: Queued[]): Promise<void> {
    let outcomes: AppendOutcome[];
    try {
      outcomes = await this.write(batch.map((item) => this.known(item.input)));
    } catch {
      for (const item of batch) {
        await this.commitOne(item.input).then(
          (outcome) => this.settle(item, outcome),
          (error: unknown) => item.reject(error),
        );
      }
      return;
    }
    batch.forEach((item, i) => this.settle(item, outcomes[i]!));
  }

  /** Commits one record in its own transaction, retrying a lost race twice. */
  private async commitOne(input: HeadCommit): Promise<AppendOutcome> {
    for (let attempt = 0; ; attempt++) {
      try {
        const [outcome] = await this.write([input]);
        return outcome!;
      } catch (error) {
        if (attempt < 2 && isRetryable(error)) continue;
        throw error;
      }
    }
  }

  /** One batch through the writer, observed once it is durable. */
  private async write(inputs: readonly HeadCommit[]): Promise<AppendOutcome[]> {
    const started = performance.now();
    const written = this.writer.write(inputs);
    const place = this.writer.lastPlace;
    const outcomes = await written;
    this.observe(inputs.length, (performance.now() - started) / 1000, place);
    return outcomes;
  }

  /** Skips creating a conversation this router has seen committed before. */
  private known(input: HeadCommit): HeadCommit {
    return input.createMembers !== undefined && this.knownConversations.has(input.conv)
      ? { ...input, createMembers: undefined }
      : input;
  }

  private settle(item: Queued, outcome: AppendOutcome): void {
    if (outcome.kind === "certified") {
      this.knownConversations.add(outcome.record.conv);
      if (!outcome.existed) this.ctx.recent.add(outcome.record);
    }
    item.resolve(outcome);
  }
}

async function isRegistered(ctx: AppendContext, name: string): Promise<boolean> {
  if (ctx.knownAgents.has(name)) return true;
  const agent = await findAgent(ctx.store.db, name);
  if (agent !== undefined) ctx.knownAgents.add(name);
  return agent !== undefined;
}

/** Checks and certifies a post proposed by the linked agent `author`. */
export type CheckedProposal =
  | { readonly ok: true; readonly record: RecordFields; readonly hash: string }
  | { readonly ok: false; readonly refusal: Extract<AppendOutcome, { kind: "refused" }> };

/**
 * Checks a proposal of the linked agent: a readable record of the expected kind, authored by that
 * agent, whose action signature verifies over the bytes as they arrived.
 */
export function checkProposal(
  author: { name: string; publicKey: Uint8Array },
  kind: "post" | "genesis",
  bytes: Uint8Array,
  signature: Uint8Array,
): CheckedProposal {
  const refuse = (reason: "malformed" | "bad-signature", detail: string): CheckedProposal => ({
    ok: false,
    refusal: { kind: "refused", reason, detail },
  });
  const read = readRecord(bytes);
  if (!read.ok) return refuse("malformed", read.reason);
  if (read.record.kind !== kind) {
    return refuse(
      "malformed",
      kind === "post" ? "a genesis opens a group; propose posts only" : "open-group takes a genesis record",
    );
  }
  if (read.record.author !== author.name) return refuse("bad-signature", "the author is not the linked agent");
  if (!verifyActionSignature(author.publicKey, bytes, signature))
    return refuse("bad-signature", "the action signature does not verify");
  return { ok: true, record: read.record, hash: read.hash };
}

export async function appendPost(
  ctx: AppendContext,
  appends: AppendBatcher,
  author: { name: string; publicKey: Uint8Array },
  bytes: Uint8Array,
  signature: Uint8Array,
): Promise<AppendOutcome> {
  const checked = checkProposal(author, "post", bytes, signature);
  if (!checked.ok) return checked.refusal;
  const { record, hash } = checked;
  hop("router.verified", author.name);
  // The content's canonical encoding is part of the record's canonical bytes, so a record no
  // larger than the limit holds content within it; only a larger one needs the content measured.
  if (bytes.byteLength > MAX_CONTENT_BYTES) {
    const size = checkContentSize(record.content as never);
    if (!size.ok) return { kind: "refused", reason: "content-invalid", detail: size.reason };
  }
  const direct = record.conv.startsWith("direct:");
  if (direct) {
    const other =
      record.conv
        .slice("direct:".length)
        .split(",")
        .find((m) => m !== author.name) ?? author.name;
    if (!(await isRegistered(ctx, other)))
      return { kind: "refused", reason: "unknown-agent", detail: `${other} is not registered` };
  }
  const outcome = await appends.commit({
    conv: record.conv,
    bytes,
    hash,
    prev: record.prev,
    author: record.author,
    postId: record.postId,
    signatures: [{ signer: author.name, signature }],
    createMembers: direct ? record.conv.slice("direct:".length).split(",") : undefined,
  });
  hop("router.committed", author.name);
  return outcome;
}

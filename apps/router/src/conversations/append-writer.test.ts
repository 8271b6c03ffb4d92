import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { generateSigningKey, mintId, recordHashOf, verifyCertificate } from "@social-harness/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { openRouterStore } from "../db/database.js";
import type { HeadCommit } from "./append.service.js";
import { sqliteWriter } from "./append-writer.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function routerFile(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), "sh-append-writer-"));
  dirs.push(dir);
  const file = path.join(dir, "router.db");
  const store = await openRouterStore({ sqliteFile: file });
  await store.close();
  return file;
}

/** A chain of direct posts from alice to bob, each naming the one before as prev. */
function chain(length: number, prev: string | null = null): HeadCommit[] {
  const commits: HeadCommit[] = [];
  for (let i = 0; i < length; i++) {
    const bytes = new TextEncoder().encode(`post ${i} after ${prev}`);
    const hash = recordHashOf(bytes);
    commits.push({
      conv: "direct:alice,bob",
      bytes,
      hash,
      prev,
      author: "alice",
      postId: mintId("post"),
      signatures: [{ signer: "alice", signature: new Uint8Array(64) }],
      createMembers: ["alice", "bob"],
    });
    prev = hash;
  }
  return commits;
}

const storedSeqs = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT seq FROM records ORDER BY seq").all() as { seq: number }[]).map((r) => r.seq);
  } finally {
    db.close();
  }
};

describe("the router's SQLite writer", () => {
  it("commits a batch on the event loop: its records are in the file, certified, when write() resolves", async () => {
    const file = await routerFile();
    const routerKey = generateSigningKey();
    const writer = sqliteWriter({ file, routerKey, now: Date.now });
    const batch = chain(3);
    const outcomes = await writer.write(batch);
    expect(writer.place).toBe("loop");
    expect(storedSeqs(file)).toEqual([1, 2, 3]);
    outcomes.forEach((outcome, i) => {
      expect(outcome.kind).toBe("certified");
      if (outcome.kind !== "certified") return;
      const { conv, seq, certificate } = outcome.record;
      expect(seq).toBe(i + 1);
      expect(verifyCertificate(routerKey.publicKey, { conv, seq, record: batch[i]!.hash }, certificate)).toBe(true);
    });
    await writer.close();
  });

  it("moves batches to the writer thread while commits are slow, probes the disk on the loop, and keeps the chain unbroken", async () => {
    const file = await routerFile();
    const moves: string[] = [];
    // Every commit counts as slow: the first full window of batches moves them to the thread.
    const slow = { leaveMs: -1, returnMs: -2, onMove: (to: string) => moves.push(to) };
    const writer = sqliteWriter({ file, routerKey: generateSigningKey(), now: Date.now, placement: slow });
    let prev: string | null = null;
    let seq = 0;
    const post = async () => {
      const [commit] = chain(1, prev);
      const [outcome] = await writer.write([commit!]);
      expect(outcome?.kind === "certified" && outcome.record.seq).toBe(++seq);
      prev = commit!.hash;
    };
    for (let i = 0; i < 15; i++) await post();
    expect(writer.place).toBe("thread");
    // On the thread, one batch in 32 commits on the loop (a probe), each after the thread moved the head.
    for (let i = 0; i < 64; i++) await post();
    expect(moves).toEqual(["thread"]);
    expect(storedSeqs(file)).toEqual(Array.from({ length: seq }, (_, i) => i + 1));
    await writer.close();
  });

  it("brings batches back to the loop once probes on the loop find commits fast", async () => {
    const file = await routerFile();
    const moves: string[] = [];
    const fast = {
      start: "thread" as const,
      leaveMs: 60_000,
      returnMs: 30_000,
      onMove: (to: string) => moves.push(to),
    };
    const writer = sqliteWriter({ file, routerKey: generateSigningKey(), now: Date.now, placement: fast });
    let prev: string | null = null;
    for (let i = 0; i < 32 * 15 && writer.place === "thread"; i++) {
      const [commit] = chain(1, prev);
      const [outcome] = await writer.write([commit!]);
      expect(outcome?.kind).toBe("certified");
      prev = commit!.hash;
    }
    expect(writer.place).toBe("loop");
    expect(moves).toEqual(["loop"]);
    const stored = storedSeqs(file);
    expect(stored).toEqual(Array.from({ length: stored.length }, (_, i) => i + 1));
    await writer.close();
  });

  it("answers a post proposed twice in one batch with the record the batch certified for it", async () => {
    const file = await routerFile();
    const routerKey = generateSigningKey();
    const writer = sqliteWriter({ file, routerKey, now: Date.now });
    const [post] = chain(1);
    const [first, again] = await writer.write([post!, post!]);
    expect(first).toMatchObject({ kind: "certified", existed: false });
    expect(again).toMatchObject({ kind: "certified", existed: true, differs: false });
    if (first?.kind !== "certified" || again?.kind !== "certified") return;
    expect(again.record).toEqual({
      conv: post!.conv,
      seq: 1,
      hash: post!.hash,
      bytes: post!.bytes,
      signatures: first.record.signatures,
      certificate: first.record.certificate,
    });
    expect(storedSeqs(file)).toEqual([1]);
    await writer.close();
  });

  it("answers a moved head, not a certificate, for a proposal whose prev is stale", async () => {
    const file = await routerFile();
    const writer = sqliteWriter({ file, routerKey: generateSigningKey(), now: Date.now });
    const [first] = chain(1);
    await writer.write([first!]);
    const [stale] = chain(1);
    const [outcome] = await writer.write([stale!]);
    expect(outcome).toEqual({ kind: "head-moved", conv: "direct:alice,bob", head: first!.hash });
    await writer.close();
  });

  it("answers a PostId certified in an earlier batch with its record: a retry on a stale head, or other bytes on the current one", async () => {
    const file = await routerFile();
    const writer = sqliteWriter({ file, routerKey: generateSigningKey(), now: Date.now });
    const [post] = chain(1);
    const [first] = await writer.write([post!]);
    if (first?.kind !== "certified") throw new Error("the first post was not certified");
    // The same proposal again: its prev is no longer the head, and it is not a moved head.
    const [retry] = await writer.write([post!]);
    expect(retry).toMatchObject({ kind: "certified", existed: true, differs: false });
    // Other bytes under the same PostId, naming the current head: the stored record, marked as differing.
    const [reused] = chain(1, post!.hash).map((commit) => ({ ...commit, postId: post!.postId }));
    const [other] = await writer.write([reused!]);
    expect(other).toMatchObject({ kind: "certified", existed: true, differs: true });
    if (other?.kind !== "certified") return;
    expect(Buffer.from(other.record.certificate)).toEqual(Buffer.from(first.record.certificate));
    expect(storedSeqs(file)).toEqual([1]);
    await writer.close();
  });
});

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createStatementCounter, type StatementCounter } from "@social-harness/sqlite";
import { heldTransaction, openDaemonStore, type DaemonStore } from "../db/database.js";
import { History, type CertifiedRecord, type Disposition } from "./history.service.js";
import { findHead, findPosition } from "./history.store.js";

const CONV = "g:test";
const stores: DaemonStore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function history(counter?: StatementCounter): Promise<{ store: DaemonStore; history: History }> {
  const dir = mkdtempSync(path.join(tmpdir(), "history-"));
  dirs.push(dir);
  const store = await openDaemonStore(path.join(dir, "d.db"), { counter });
  stores.push(store);
  return { store, history: new History(store, () => 1_000) };
}

function record(seq: number, hash = `h${seq}`): CertifiedRecord {
  return {
    conv: CONV,
    seq,
    hash,
    record: { kind: "post", author: "a", postId: `p${seq}`, at: seq } as CertifiedRecord["record"],
    bytes: new Uint8Array([seq]),
    signatures: [],
    certificate: new Uint8Array([seq]),
  };
}

const own = (store: DaemonStore, h: History, r: CertifiedRecord) =>
  heldTransaction(store.db, "relaxed", (held) =>
    h.appendOwnHeld(held, { record: r, disposition: "own", opens: ["a", "b"] }),
  );

describe("History: our own records", () => {
  it("opens the conversation with its members on the first record, and moves the cursor over records stored ahead", async () => {
    const { store, history: h } = await history();
    await own(store, h, record(2));
    expect(await h.conversation(store.db, CONV)).toEqual({ conv: CONV, members: ["a", "b"], contiguousSeq: 0 });
    await own(store, h, record(1));
    expect((await h.conversation(store.db, CONV))?.contiguousSeq).toBe(2);
    await own(store, h, record(3));
    expect((await h.conversation(store.db, CONV))?.contiguousSeq).toBe(3);
  });

  it("stores a record it already holds once, and refuses a different record at its position", async () => {
    const { store, history: h } = await history();
    await own(store, h, record(1));
    await own(store, h, record(1));
    expect((await h.recordsAfter(store.db, CONV, 0, 10)).map((r) => r.hash)).toEqual(["h1"]);
    await expect(own(store, h, record(1, "other"))).rejects.toThrow(/different record/);
    expect((await h.recordsAfter(store.db, CONV, 0, 10)).map((r) => r.hash)).toEqual(["h1"]);
    expect((await h.conversation(store.db, CONV))?.contiguousSeq).toBe(1);
  });

  it("reads a position's conversation and the hashes at and before it in one answer", async () => {
    const { store, history: h } = await history();
    expect(await h.position(store.db, CONV, 1)).toEqual({
      conversation: undefined,
      atHash: undefined,
      prevHash: undefined,
      storedAfter: false,
    });
    await own(store, h, record(1));
    await own(store, h, record(2));
    expect(await h.position(store.db, CONV, 2)).toEqual({
      conversation: { conv: CONV, members: ["a", "b"], contiguousSeq: 2 },
      atHash: "h2",
      prevHash: "h1",
      storedAfter: false,
    });
    expect(await h.position(store.db, CONV, 1)).toMatchObject({ storedAfter: true });
    expect(await h.position(store.db, CONV, 3)).toMatchObject({
      atHash: undefined,
      prevHash: "h2",
      storedAfter: false,
    });
  });

  it("moves the cursor over our records stored ahead when a pushed record fills the gap, as its position says", async () => {
    const { store, history: h } = await history();
    await own(store, h, record(1));
    await own(store, h, record(3));
    await own(store, h, record(4));
    const position = await h.position(store.db, CONV, 2);
    expect(position).toMatchObject({ atHash: undefined, prevHash: "h1", storedAfter: true });
    await store.db
      .transaction()
      .execute((trx) =>
        h.append(trx, { record: record(2), disposition: "delivered", storedAfter: position.storedAfter }),
      );
    expect((await h.conversation(store.db, CONV))?.contiguousSeq).toBe(4);
    // With nothing stored after it, the next record moves the cursor by one, without looking ahead.
    const next = await h.position(store.db, CONV, 5);
    expect(next.storedAfter).toBe(false);
    await store.db
      .transaction()
      .execute((trx) => h.append(trx, { record: record(5), disposition: "delivered", storedAfter: next.storedAfter }));
    expect((await h.conversation(store.db, CONV))?.contiguousSeq).toBe(5);
  });
});

describe("History: the next record's position from the conversation's tip", () => {
  /** What the one read says of a position, beside what History answers. */
  const both = async (store: DaemonStore, h: History, seq: number) => ({
    answered: await h.position(store.db, CONV, seq),
    read: await findPosition(store.db, CONV, seq),
  });
  const pushed = (store: DaemonStore, h: History, r: CertifiedRecord) =>
    store.db.transaction().execute((trx) => h.append(trx, { record: r, disposition: "delivered", storedAfter: false }));

  it("answers as the read does while records arrive in order, after one stored ahead, and once the gap is filled", async () => {
    const counter = createStatementCounter();
    const { store, history: h } = await history(counter);
    await own(store, h, record(1));
    for (const seq of [2, 3]) {
      const { answered, read } = await both(store, h, seq);
      expect(answered).toEqual(read);
      await pushed(store, h, record(seq));
    }
    // The record after the tip is answered without a statement.
    const before = counter.counts.statements;
    await h.position(store.db, CONV, 4);
    expect(counter.counts.statements).toBe(before);
    expect(await both(store, h, 4)).toMatchObject({
      answered: { prevHash: "h3", storedAfter: false, conversation: { contiguousSeq: 3 } },
    });
    await own(store, h, record(5)); // ahead of the cursor: 4 is no longer the conversation's tip
    const ahead = await both(store, h, 4);
    expect(ahead.answered).toEqual(ahead.read);
    expect(ahead.answered.storedAfter).toBe(true);
    await store.db
      .transaction()
      .execute((trx) => h.append(trx, { record: record(4), disposition: "delivered", storedAfter: true }));
    const filled = await both(store, h, 6);
    expect(filled.answered).toEqual(filled.read);
    expect(filled.answered).toMatchObject({ prevHash: "h5", conversation: { contiguousSeq: 5 } });
  });

  it("forgets a record whose transaction rolled back, in a held transaction and in a Kysely one", async () => {
    const { store, history: h } = await history();
    await own(store, h, record(1));
    await h.position(store.db, CONV, 2); // learns the tip at 1
    await expect(
      heldTransaction(store.db, "relaxed", (held) => {
        h.appendHeld(held, { record: record(2), disposition: "delivered", storedAfter: false });
        throw new Error("the batch failed after storing 2");
      }),
    ).rejects.toThrow(/batch failed/);
    const afterHeld = await both(store, h, 3);
    expect(afterHeld.answered).toEqual(afterHeld.read);
    expect(afterHeld.answered).toMatchObject({ prevHash: undefined, conversation: { contiguousSeq: 1 } });

    await h.position(store.db, CONV, 2);
    await expect(
      store.db.transaction().execute(async (trx) => {
        await h.append(trx, { record: record(2), disposition: "delivered", storedAfter: false });
        throw new Error("the batch failed after storing 2");
      }),
    ).rejects.toThrow(/batch failed/);
    const afterKysely = await both(store, h, 3);
    expect(afterKysely.answered).toEqual(afterKysely.read);
    expect(afterKysely.answered).toMatchObject({ prevHash: undefined, conversation: { contiguousSeq: 1 } });
    const next = await both(store, h, 2);
    expect(next.answered).toEqual(next.read);
  });
});

describe("History: our own posts keep a direct conversation's tip", () => {
  const DIRECT = "direct:alice,bob";
  const direct = (seq: number): CertifiedRecord => ({ ...record(seq), conv: DIRECT });
  const ownDirect = (store: DaemonStore, h: History, seq: number) =>
    heldTransaction(store.db, "relaxed", (held) =>
      h.appendOwnHeld(held, { record: direct(seq), disposition: "own", opens: ["alice", "bob"] }),
    );
  /** The head History answers and the statements it ran, beside the head the read finds. */
  const heads = async (store: DaemonStore, h: History, counter: StatementCounter) => {
    const before = counter.counts.statements;
    const answered = await h.head(DIRECT);
    return { answered, statements: counter.counts.statements - before, read: await findHead(store.db, DIRECT) };
  };

  it("answers the head and stores the next post without a read, and reads again once a post is stored ahead", async () => {
    const counter = createStatementCounter();
    const { store, history: h } = await history(counter);
    await ownDirect(store, h, 1);
    expect(await heads(store, h, counter)).toEqual({
      answered: { seq: 1, hash: "h1" },
      statements: 0,
      read: { seq: 1, hash: "h1" },
    });
    // The post right after the tip: its insert and the cursor's step, no look ahead.
    const reads = counter.counts.reads;
    await ownDirect(store, h, 2);
    expect(counter.counts.reads).toBe(reads);
    expect((await h.conversation(store.db, DIRECT))?.contiguousSeq).toBe(2);
    expect(await heads(store, h, counter)).toMatchObject({ answered: { seq: 2, hash: "h2" }, statements: 0 });

    await ownDirect(store, h, 4); // ahead of the cursor: the head is read again
    const ahead = await heads(store, h, counter);
    expect(ahead).toEqual({ answered: { seq: 4, hash: "h4" }, statements: 1, read: { seq: 4, hash: "h4" } });
    await ownDirect(store, h, 3); // fills the gap; the cursor moves past it onto 4, whose hash was not read
    expect((await h.conversation(store.db, DIRECT))?.contiguousSeq).toBe(4);
    expect(await heads(store, h, counter)).toMatchObject({ answered: { seq: 4, hash: "h4" }, statements: 1 });
    await ownDirect(store, h, 5); // looks ahead once, finds nothing: the tip again
    expect(await heads(store, h, counter)).toEqual({
      answered: { seq: 5, hash: "h5" },
      statements: 0,
      read: { seq: 5, hash: "h5" },
    });
    const next = await h.position(store.db, DIRECT, 6);
    expect(next).toEqual(await findPosition(store.db, DIRECT, 6));
  });

  it("forgets the tip a rolled-back post made", async () => {
    const counter = createStatementCounter();
    const { store, history: h } = await history(counter);
    await ownDirect(store, h, 1);
    await expect(
      heldTransaction(store.db, "relaxed", (held) => {
        h.appendOwnHeld(held, { record: direct(2), disposition: "own", opens: ["alice", "bob"] });
        throw new Error("the batch failed after storing 2");
      }),
    ).rejects.toThrow(/batch failed/);
    expect(await heads(store, h, counter)).toEqual({
      answered: { seq: 1, hash: "h1" },
      statements: 1,
      read: { seq: 1, hash: "h1" },
    });
  });
});

describe("History: records by hash", () => {
  it("reads many records in one call, past one query's 500 hashes, and leaves out what it does not hold", async () => {
    const { store, history: h } = await history();
    for (let seq = 1; seq <= 600; seq++) await own(store, h, record(seq));
    const wanted = ["h1", "h500", "h501", "h600", "missing"];
    const found = await h.recordsByHash(store.db, CONV, [...Array.from({ length: 550 }, (_, i) => `x${i}`), ...wanted]);
    expect([...found.keys()].sort()).toEqual(["h1", "h500", "h501", "h600"]);
    expect(found.get("h501")).toMatchObject({ conv: CONV, seq: 501, postId: "p501" });
  });
});

describe("History: the hash index holds the records looked up by hash", () => {
  const withBytes = (seq: number, bytes: Uint8Array): CertifiedRecord => ({ ...record(seq), bytes });
  // A collective part's CBOR: a request, answer or close names its collective by a `col_` id; a
  // group post's multicast marker names none.
  const part = (fields: Record<string, string>) =>
    new Uint8Array(Buffer.concat(Object.entries(fields).flatMap(([k, v]) => [Buffer.from(k), Buffer.from(v)])));
  const answer = () => part({ type: "collective", op: "answer", id: "col_AAAA" });
  const multicast = () => part({ type: "collective", op: "multicast" });
  const stored = (store: DaemonStore, h: History, r: CertifiedRecord, disposition: Disposition) =>
    store.db.transaction().execute((trx) => h.append(trx, { record: r, disposition, opens: ["a", "b"] }));
  const indexed = (store: DaemonStore) =>
    (
      store.sqlite.prepare("SELECT seq FROM records WHERE hash_indexed = 1 ORDER BY seq").all() as { seq: number }[]
    ).map((r) => r.seq);

  it("leaves out the plain and group posts delivered or our own, and keeps the collectives' parts and what admission still settles", async () => {
    const { store, history: h } = await history();
    await own(store, h, record(1));
    await stored(store, h, record(2), "delivered");
    await stored(store, h, record(3), "queued");
    await stored(store, h, record(4), "held");
    await stored(store, h, record(5), "consumed");
    await own(store, h, withBytes(6, answer()));
    await stored(store, h, withBytes(7, answer()), "delivered");
    await own(store, h, withBytes(8, multicast()));
    await stored(store, h, withBytes(9, multicast()), "delivered");
    expect(indexed(store)).toEqual([3, 4, 5, 6, 7]);
    const plan = store.sqlite
      .prepare("EXPLAIN QUERY PLAN SELECT * FROM records WHERE hash = ? AND hash_indexed = 1")
      .all("h3") as { detail: string }[];
    expect(plan.map((p) => p.detail).join(" ")).toMatch(/records_by_hash/);
  });

  it("still finds, and settles, a record that is not in the index, by a scan of its conversation", async () => {
    const { store, history: h } = await history();
    for (let seq = 1; seq <= 5; seq++) await own(store, h, record(seq));
    expect(indexed(store)).toEqual([]);
    expect(await h.recordByHash(store.db, CONV, "h2")).toMatchObject({ conv: CONV, seq: 2, disposition: "own" });
    expect(await h.recordByHash(store.db, "g:other", "h2")).toBeUndefined();
    await h.setDisposition(store.db, CONV, "h2", "discarded");
    expect((await h.recordsAfter(store.db, CONV, 0, 10)).map((r) => r.disposition)).toEqual([
      "own",
      "discarded",
      "own",
      "own",
      "own",
    ]);
  });
});

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  installTracing,
  InboxEntrySchema,
  uninstallTracing,
  type InboundItem,
  type LocalGuidance,
  type TraceBackend,
} from "@social-harness/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { createStatementCounter, type StatementCounter } from "@social-harness/sqlite";
import { openDaemonStore, type DaemonStore } from "../db/database.js";
import { entryOf, Inbox } from "./inbox.service.js";
import { pageRows, pendingRows } from "./inbox.store.js";

/** Tracing with spans that record nothing: read_inbox then makes its pages of rows, to trace each. */
const silentTracing: TraceBackend = {
  start: () => ({ traceparent: "", context: {}, end: () => undefined }) as never,
  active: () => ({}) as never,
  within: (_context, fn) => fn(),
};

describe("a read_inbox page", () => {
  let store: DaemonStore;
  let dir: string;
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function openInbox(counter?: StatementCounter): Promise<Inbox> {
    dir = mkdtempSync(path.join(tmpdir(), "sh-inbox-page-"));
    store = await openDaemonStore(path.join(dir, "daemon.db"), counter === undefined ? {} : { counter });
    return new Inbox(store);
  }

  /** A direct message from alice to bob, its text as given. */
  const directItem = (n: number, text: string): InboundItem => ({
    kind: "multicast",
    message: {
      kind: "direct",
      postId: `p${n}`,
      address: "agent:bob",
      sender: "agent:alice",
      content: [{ type: "text", text }],
    },
  });

  it("carries each item's stored JSON byte for byte, equal to the item as its schema reads it", async () => {
    const inbox = await openInbox();
    const item = (n: number) => directItem(n, `hello "${n}" \u2028 ✓`);
    const guidance: LocalGuidance = { checkId: "chk_1", subjects: [], instructions: [] };
    for (let n = 0; n < 52; n++) await inbox.admitNow(n % 2 === 0 ? { item: item(n) } : { item: item(n), guidance });

    const first = await inbox.readPage();
    const rows = await pendingRows(store.db, 0, Number.MAX_SAFE_INTEGER, 60);
    for (const row of rows.slice(0, 50)) {
      const guided = row.guidance === null ? "" : `,"guidance":${row.guidance}`;
      expect(first).toContain(`"item":${row.item}${guided}}`);
    }
    const page = JSON.parse(first) as { items: unknown[]; nextCursor: string };
    expect(page.items).toEqual(rows.slice(0, 50).map(entryOf));
    for (const entry of page.items) expect(InboxEntrySchema.parse(entry)).toEqual(entry);

    const second = JSON.parse(await inbox.readPage(page.nextCursor)) as Record<string, unknown>;
    expect(second).toEqual({ items: rows.slice(50).map(entryOf) });
  });

  it("is the same page, byte for byte, written by SQLite or made of rows", async () => {
    // Which statements each walk ran: SQLite's page (group_concat) or the rows.
    const ran: string[] = [];
    const inbox = await openInbox({ counts: createStatementCounter().counts, count: (sql) => void ran.push(sql) });
    const pagesBy = (statements: string[]) => ({
      sqlite: statements.filter((sql) => sql.includes("group_concat")).length,
      rows: statements.filter((sql) => sql.startsWith("SELECT id, token, item")).length,
    });
    const guidance: LocalGuidance = {
      checkId: "chk_1",
      subjects: [{ id: "s1", sender: "agent:alice", recipients: ["agent:bob"], text: 'a "quoted" \\ subject' }],
      instructions: [
        {
          middlewareId: "rules",
          ruleId: "r1",
          expectation: "required",
          subjects: ["s1"],
          instruction: 'Say "no" \u2028 ✓',
        },
      ],
    };
    for (let n = 0; n < 123; n++) {
      const item = directItem(n, `"${n}" \\ \n ✓ 𝄞 \u0000`);
      await inbox.admitNow(n % 3 === 0 ? { item, guidance } : { item });
    }
    for (const row of (await pendingRows(store.db, 0, Number.MAX_SAFE_INTEGER, 200)).filter((_, i) => i % 7 === 3))
      await inbox.acknowledge(row.token, "runtime");
    const cursors: (string | undefined)[] = [undefined];
    const written: string[] = [];
    ran.length = 0;
    for (let cursor: string | undefined; ;) {
      written.push(await inbox.readPage(cursor));
      cursor = (JSON.parse(written.at(-1)!) as { nextCursor?: string }).nextCursor;
      if (cursor === undefined) break;
      cursors.push(cursor);
    }
    expect(written.map((page) => (JSON.parse(page) as { items: unknown[] }).items.length)).toEqual([50, 50, 5]);
    expect(pagesBy(ran)).toEqual({ sqlite: 3, rows: 0 });
    ran.length = 0;
    installTracing(silentTracing); // each row's read is traced: the pages are made of rows
    try {
      for (const [i, cursor] of cursors.entries()) expect(await inbox.readPage(cursor)).toBe(written[i]);
    } finally {
      uninstallTracing();
    }
    expect(pagesBy(ran)).toEqual({ sqlite: 0, rows: 3 });
  });

  it("writes each row limit into its SQL as an integer and refuses anything else", async () => {
    const inbox = await openInbox();
    for (let n = 0; n < 3; n++)
      await inbox.admitNow({
        item: {
          kind: "multicast",
          message: { kind: "direct", postId: `p${n}`, address: "agent:bob", sender: "agent:alice", content: [] },
        },
      });
    expect(await pendingRows(store.db, 0, Number.MAX_SAFE_INTEGER, 2)).toHaveLength(2);
    expect((await pageRows(store.db, 0, Number.MAX_SAFE_INTEGER, 1)).map((row) => row.id)).toEqual([1]);
    for (const limit of [1.5, -1, Number.NaN, Number.POSITIVE_INFINITY])
      await expect(pendingRows(store.db, 0, Number.MAX_SAFE_INTEGER, limit)).rejects.toThrow(RangeError);
  });
});

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { encodeSignatureList } from "@social-harness/protocol";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { WebSocket } from "ws";
import { RecentRecords } from "../conversations/append.service.js";
import type { StoredRecord } from "../conversations/conversations.store.js";
import { openRouterStore, type RouterStore } from "../db/database.js";
import { LinkSession } from "./session.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function store(): Promise<RouterStore> {
  const dir = mkdtempSync(path.join(tmpdir(), "sh-session-"));
  const opened = await openRouterStore({ sqliteFile: path.join(dir, "router.db") });
  cleanups.push(async () => {
    await opened.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return opened;
}

const CONV = "direct:alice,bob";
const SIGNATURES = encodeSignatureList([{ signer: "alice", signature: new Uint8Array(64) }]);

function record(seq: number): StoredRecord {
  return {
    conv: CONV,
    seq,
    hash: `rec_${String(seq).padStart(43, "0")}`,
    bytes: new Uint8Array(300),
    signatures: SIGNATURES,
    certificate: new Uint8Array(64),
  };
}

describe("a link session", () => {
  it("holds one waiting pass, not one per record, while a member's window stays full", async () => {
    const sent: Uint8Array[] = [];
    const socket = { send: (bytes: Uint8Array) => sent.push(bytes), close: () => undefined } as unknown as WebSocket;
    const recent = new RecentRecords(1_000);
    const session = new LinkSession(
      "bob",
      new Uint8Array(32),
      socket,
      await store(),
      recent,
      pino({ level: "silent" }),
    );
    await session.sync({});
    // bob never acknowledges: after the window (512 pushes) every later record waits.
    for (let seq = 1; seq <= 600; seq++) {
      recent.add(record(seq));
      session.notify(CONV, seq);
    }
    await new Promise((resolve) => setImmediate(resolve));
    const pushed = sent.length;
    expect(pushed).toBe(1 + 512); // "synced", then the window
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let seq = 601; seq <= 200_600; seq++) session.notify(CONV, seq);
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    expect(sent.length).toBe(pushed);
    // One pending pass per notification would hold tens of megabytes here.
    expect(grown).toBeLessThan(4 * 1024 * 1024);
    // Acknowledgments open the window again and the pushes go on, in order.
    for (let i = 0; i < 512; i++) session.acknowledge();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sent.length).toBe(pushed + 88);
    session.markClosed();
  });
});

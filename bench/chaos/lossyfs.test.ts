/**
 * The file system that forgets, proven on SQLite: a writer process commits transactions into a
 * WAL database on lossyfs and is killed with SIGKILL, then the power is cut. With synchronous=OFF
 * (no fsync) the last commits are gone; with synchronous=FULL every commit it was told of is there.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Lossyfs, lossyfsUnavailable } from "./lossyfs.js";

let scratch: string;
let unavailable: string | undefined;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "sh-lossyfs-"));
  unavailable = await lossyfsUnavailable(scratch);
  if (unavailable !== undefined) process.stdout.write(`lossyfs cannot be mounted here (${unavailable}): skipped\n`);
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

/** Commits one row per transaction and prints each id once COMMIT has returned; never stops. */
const WRITER = `
const Database = require("better-sqlite3");
const db = new Database(process.argv[1]);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = " + process.argv[2]);
db.exec("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)");
const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
for (let i = 1; ; i++) {
  insert.run("row " + i);
  process.stdout.write(i + "\\n");
}`;

/** Runs the writer until it has committed `commits` transactions, then kills it with SIGKILL. */
async function commitThenKill(file: string, synchronous: string, commits: number): Promise<number> {
  const child = spawn(process.execPath, ["--input-type=commonjs", "-e", WRITER, file, synchronous], {
    cwd: process.cwd(),
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  let seen = 0;
  let buffer = "";
  await new Promise<void>((resolve) => {
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      if (lines.length > 0) seen = Number(lines.at(-1));
      if (seen >= commits) {
        child.kill("SIGKILL");
        resolve();
      }
    });
  });
  await exited;
  return seen;
}

function rows(file: string): number {
  const db = new Database(file);
  try {
    return (db.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe("lossyfs", () => {
  it("drops what was not fsync'd: SQLite with synchronous=OFF loses its last commits on a power cut", async (t) => {
    if (unavailable !== undefined) return t.skip();
    const disk = await Lossyfs.mount(path.join(scratch, "off"));
    try {
      const file = path.join(disk.mount, "off.db");
      // A first session made durable (a clean unmount flushes everything).
      expect(await commitThenKill(file, "FULL", 5)).toBeGreaterThanOrEqual(5);
      await disk.remount();
      expect(rows(file)).toBeGreaterThanOrEqual(5);
      const before = rows(file);
      // No reading in between: the reader's close would checkpoint, and fsync, the WAL.
      expect(await commitThenKill(file, "OFF", 200)).toBeGreaterThanOrEqual(200);
      await disk.cut();
      expect(disk.dropped).toMatch(/\/off\.db-wal:[1-9]/);
      expect(rows(file)).toBe(before);
    } finally {
      await disk.dispose();
    }
  });

  it("keeps what was fsync'd: SQLite with synchronous=FULL keeps every commit across power cuts", async (t) => {
    if (unavailable !== undefined) return t.skip();
    const disk = await Lossyfs.mount(path.join(scratch, "full"));
    try {
      const file = path.join(disk.mount, "full.db");
      let committed = 0;
      for (const commits of [50, 120, 1]) {
        // The writer may commit one more after its last line and before SIGKILL lands.
        const told = committed + (await commitThenKill(file, "FULL", commits));
        await disk.cut();
        committed = rows(file);
        expect(committed).toBeGreaterThanOrEqual(told);
        expect(committed).toBeLessThanOrEqual(told + 1);
      }
      expect(disk.cuts).toBe(3);
    } finally {
      await disk.dispose();
    }
  });

  it("makes a file's name durable on its fsync, and a directory's entries on the directory's fsync", async (t) => {
    if (unavailable !== undefined) return t.skip();
    const disk = await Lossyfs.mount(path.join(scratch, "names"));
    try {
      const at = (name: string) => path.join(disk.mount, name);
      const synced = await open(at("synced"), "w");
      await synced.write("kept");
      await synced.sync();
      await synced.write(" and this is gone");
      await synced.close();
      await writeFile(at("named-only"), "content never synced");
      const dir = await open(disk.mount, "r");
      await dir.sync();
      await dir.close();
      await writeFile(at("unsynced"), "gone");
      await disk.cut();
      expect(await readFile(at("synced"), "utf8")).toBe("kept");
      expect(existsSync(at("unsynced"))).toBe(false);
      expect(await readFile(at("named-only"), "utf8")).toBe("");
    } finally {
      await disk.dispose();
    }
  });
});

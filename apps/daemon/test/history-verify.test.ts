/**
 * `social-harness history verify` (issue 13) on a real daemon's history: a clean history verifies
 * from the data directory and from an export with the keys `history export --keys` wrote, and
 * hand-corrupted copies (a flipped byte, a removed record, reordered records, a swapped
 * certificate, a shown field that differs from the signed bytes, foreign keys) each fail with a
 * verdict naming the conversation and position, and a non-zero exit.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForItems, Network } from "./harness/network.js";
import { removeDirs, runCli, tempDir } from "./harness/processes.js";

interface Verdict {
  conversation: string;
  ok: boolean;
  records: number;
  faults: { seq: number; problem: string }[];
}

const DIRECT = "direct:alice,bob";
const GROUP = "group:alice,bob,carol";

/** Runs `history verify` with --json and reads its verdicts, summary and exit status. */
function verify(args: string[]) {
  const run = runCli(["history", "verify", ...args, "--json"]);
  const lines = run.stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, any>);
  const verdicts = new Map(
    lines.filter((l) => "conversation" in l).map((l) => [l.conversation as string, l as Verdict]),
  );
  return { status: run.status, verdicts, summary: lines.at(-1)?.summary, stderr: run.stderr, lines };
}

describe("history verify", () => {
  let net: Network;
  let bobDir: string;
  const dirs: string[] = [];

  /** A copy of bob's stopped data directory, changed by `change` through SQL. */
  const corruptedCopy = (change: (db: Database.Database) => void) => {
    const copy = tempDir("bob-copy");
    dirs.push(copy);
    cpSync(bobDir, copy, { recursive: true });
    const db = new Database(path.join(copy, "daemon.db"));
    try {
      change(db);
    } finally {
      db.close();
    }
    return copy;
  };
  const exportOf = (dataDir: string) => {
    const dir = tempDir("export");
    dirs.push(dir);
    const file = path.join(dir, "history.jsonl");
    const keys = path.join(dir, "keys.json");
    const run = runCli(["history", "export", "--data", dataDir, "--out", file, "--keys", keys]);
    expect(run.status, run.stderr).toBe(0);
    return { file, keys, lines: readFileSync(file, "utf8").trim().split("\n") };
  };
  const rewrite = (lines: string[]) => {
    const dir = tempDir("export");
    dirs.push(dir);
    const file = path.join(dir, "changed.jsonl");
    writeFileSync(file, `${lines.join("\n")}\n`);
    return file;
  };
  const lineAt = (lines: string[], conv: string, seq: number) =>
    lines.findIndex((line) => {
      const record = JSON.parse(line) as { conversation: string; seq: number };
      return record.conversation === conv && record.seq === seq;
    });

  beforeAll(async () => {
    net = await Network.start(["alice", "bob", "carol"]);
    for (const text of ["one", "two", "three"]) await net.send("alice", "agent:bob", text);
    await net.send("bob", "agent:alice", "four");
    await net.send("alice", "group:bob,carol", "to the group");
    await net.send("carol", "group:alice,bob", "from carol");
    await waitForItems(net.agent("bob"), 5);
    bobDir = net.agent("bob").daemon.dataDir;
    // Stopped, so its database file holds every commit the copies need.
    await net.stop("bob");
  });
  afterAll(async () => {
    await net?.close();
    removeDirs(...dirs);
  });

  it("verifies a clean history from the data directory, one verdict per conversation", () => {
    const text = runCli(["history", "verify", "--data", bobDir]);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toBe(
      [
        `ok     ${DIRECT}  (4 records)`,
        `ok     ${GROUP}  (3 records)`,
        "2 conversations, 7 records: every record verifies",
        "",
      ].join("\n"),
    );
  });

  it("verifies the same history from an export and the keys it wrote", () => {
    const exported = exportOf(bobDir);
    const keys = JSON.parse(readFileSync(exported.keys, "utf8")) as { router: string; agents: Record<string, string> };
    expect(Object.keys(keys.agents).sort()).toEqual(["alice", "bob", "carol"]);
    const run = verify(["--export", exported.file, "--keys", exported.keys]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.summary).toEqual({ conversations: 2, records: 7, faulty: 0, unreadable: 0, ok: true });
  });

  it("finds a flipped byte in a stored record, naming its conversation and position", () => {
    const copy = corruptedCopy((db) => {
      const row = db.prepare("SELECT id, bytes FROM records WHERE conv = ? AND seq = 2").get(DIRECT) as {
        id: number;
        bytes: Buffer;
      };
      const bytes = Buffer.from(row.bytes);
      bytes[bytes.length - 3]! ^= 0x01;
      db.prepare("UPDATE records SET bytes = ? WHERE id = ?").run(bytes, row.id);
    });
    const run = verify(["--data", copy]);
    expect(run.status).toBe(1);
    expect(run.verdicts.get(DIRECT)).toMatchObject({ ok: false, faults: [{ seq: 2 }] });
    expect(run.verdicts.get(GROUP)).toMatchObject({ ok: true });
  });

  it("finds a removed record, in the middle of a conversation and at its end", () => {
    for (const seq of [2, 4]) {
      const copy = corruptedCopy((db) => db.prepare("DELETE FROM records WHERE conv = ? AND seq = ?").run(DIRECT, seq));
      const run = verify(["--data", copy]);
      expect(run.status).toBe(1);
      expect(run.verdicts.get(DIRECT)!.faults).toEqual([{ seq, problem: "the record at this position is missing" }]);
    }
  });

  it("finds reordered records: two records moved to each other's position", () => {
    const copy = corruptedCopy((db) => {
      const move = db.prepare("UPDATE records SET seq = ? WHERE conv = ? AND seq = ?");
      db.transaction(() => {
        move.run(-1, DIRECT, 2);
        move.run(2, DIRECT, 3);
        move.run(3, DIRECT, -1);
      })();
    });
    const run = verify(["--data", copy]);
    expect(run.status).toBe(1);
    expect(run.verdicts.get(DIRECT)!.faults.map((f) => [f.seq, f.problem])).toEqual([
      [2, "the router certificate does not verify"],
      [3, "the router certificate does not verify"],
      // The record after them names the old third record as its previous one.
      [4, "the record does not link to the previous record"],
    ]);
  });

  it("finds a certificate swapped between two records", () => {
    const copy = corruptedCopy((db) => {
      const certificate = db.prepare("SELECT certificate FROM records WHERE conv = ? AND seq = ?").pluck();
      const first = certificate.get(GROUP, 1) as Buffer;
      const second = certificate.get(GROUP, 2) as Buffer;
      const set = db.prepare("UPDATE records SET certificate = ? WHERE conv = ? AND seq = ?");
      set.run(second, GROUP, 1);
      set.run(first, GROUP, 2);
    });
    const run = verify(["--data", copy]);
    expect(run.status).toBe(1);
    expect(run.verdicts.get(GROUP)!.faults.map((f) => f.seq)).toEqual([1, 2]);
    expect(run.verdicts.get(DIRECT)).toMatchObject({ ok: true });
  });

  it("finds the same corruptions in an export, and a shown text that differs from the signed bytes", () => {
    const { lines, keys } = exportOf(bobDir);
    const at = (seq: number) => lineAt(lines, DIRECT, seq);
    const edit = (index: number, change: (record: Record<string, any>) => void) => {
      const record = JSON.parse(lines[index]!) as Record<string, any>;
      change(record);
      return JSON.stringify(record);
    };
    const flipped = lines.with(
      at(2),
      edit(at(2), (r) => {
        const bytes = Buffer.from(r.record as string, "base64url");
        bytes[bytes.length - 3]! ^= 0x01;
        r.record = bytes.toString("base64url");
      }),
    );
    const removed = lines.filter((_, i) => i !== at(2));
    const renumbered = lines
      .with(
        at(2),
        edit(at(2), (r) => (r.seq = 3)),
      )
      .with(
        at(3),
        edit(at(3), (r) => (r.seq = 2)),
      );
    const swapped = lines
      .with(
        at(1),
        edit(at(1), (r) => (r.certificate = JSON.parse(lines[at(2)]!).certificate)),
      )
      .with(
        at(2),
        edit(at(2), (r) => (r.certificate = JSON.parse(lines[at(1)]!).certificate)),
      );
    const retold = lines.with(
      at(3),
      edit(at(3), (r) => (r.content[0].text = "something else")),
    );
    const cases: [string, string[], number[]][] = [
      ["flipped byte", flipped, [2]],
      ["removed record", removed, [2]],
      ["renumbered records", renumbered, [2, 3, 4]],
      ["swapped certificate", swapped, [1, 2]],
      ["retold content", retold, [3]],
    ];
    for (const [what, changed, seqs] of cases) {
      const run = verify(["--export", rewrite(changed), "--keys", keys]);
      expect(run.status, what).toBe(1);
      expect(
        run.verdicts.get(DIRECT)!.faults.map((f) => f.seq),
        what,
      ).toEqual(seqs);
      expect(run.verdicts.get(GROUP)!.ok, what).toBe(true);
    }
    expect(verify(["--export", rewrite(retold), "--keys", keys]).verdicts.get(DIRECT)!.faults[0]!.problem).toBe(
      "shown content differ from the signed record",
    );
    // Lines carry no order of their own: the position is the certified seq, so shuffling them changes nothing.
    expect(verify(["--export", rewrite([...lines].reverse()), "--keys", keys]).status).toBe(0);
  });

  it("fails every record against another router's key, and names lines that are not records", () => {
    const exported = exportOf(bobDir);
    const keys = JSON.parse(readFileSync(exported.keys, "utf8")) as { router: string };
    keys.router = JSON.parse(readFileSync(exported.keys, "utf8")).agents.alice as string;
    const foreign = path.join(path.dirname(exported.file), "foreign.json");
    writeFileSync(foreign, JSON.stringify(keys));
    const run = verify(["--export", exported.file, "--keys", foreign]);
    expect(run.status).toBe(1);
    expect(run.summary).toMatchObject({ faulty: 2, ok: false });
    expect(run.verdicts.get(DIRECT)!.faults).toHaveLength(4);

    const garbled = verify([
      "--export",
      rewrite([...exported.lines, "{not json", '{"seq":1}']),
      "--keys",
      exported.keys,
    ]);
    expect(garbled.status).toBe(1);
    expect(garbled.lines.filter((l) => "unreadable" in l).map((l) => l.unreadable.line)).toEqual([8, 9]);
  });
});

/**
 * `social-harness history export --data <dir> [--out <file>]`: writes the daemon's certified
 * history as HistoryExportRecord JSON lines (docs/history-export.md), to the file or to stdout,
 * with a progress bar on stderr when stdout is a terminal. Safe while the daemon runs: it opens
 * the database read-only and pages by local commit order.
 */
import { createWriteStream } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { exportRecord } from "../history/history-export.js";
import { toStoredRecord } from "../history/history.store.js";

const PAGE = 1000;

function progressBar(done: number, total: number): string {
  const width = 30;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} records`;
}

export async function runHistoryCommand(argv: readonly string[]): Promise<void> {
  const [verb, ...rest] = argv;
  if (verb !== "export") throw new Error("usage: social-harness history export --data <dir> [--out <file>]");
  const { values } = parseArgs({
    args: rest,
    options: { data: { type: "string" }, out: { type: "string" } },
    strict: true,
  });
  if (values.data === undefined) throw new Error("--data <dir> is required");
  const db = new Database(path.join(path.resolve(values.data), "daemon.db"), { readonly: true, fileMustExist: true });
  const out: NodeJS.WritableStream = values.out === undefined ? process.stdout : createWriteStream(values.out);
  const showProgress = process.stdout.isTTY === true;
  try {
    const { total } = db.prepare("SELECT count(*) AS total FROM records").get() as { total: number };
    const page = db.prepare("SELECT * FROM records WHERE id > ? ORDER BY id LIMIT ?");
    let after = 0;
    let done = 0;
    for (;;) {
      const rows = page.all(after, PAGE) as Parameters<typeof toStoredRecord>[0][];
      if (rows.length === 0) break;
      const chunk = rows.map((row) => `${JSON.stringify(exportRecord(toStoredRecord(row)))}\n`).join("");
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
      after = rows.at(-1)!.id;
      done += rows.length;
      if (showProgress) process.stderr.write(progressBar(done, total));
    }
    if (showProgress) process.stderr.write("\n");
  } finally {
    db.close();
    if (out !== process.stdout) await new Promise<void>((resolve) => out.end(() => resolve()));
  }
}

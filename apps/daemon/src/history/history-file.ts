/**
 * Reading a daemon's certified history straight from its database file, for the command line.
 * Safe while the daemon runs: the database is opened read-only and paged by local commit order.
 */
import path from "node:path";
import Database from "better-sqlite3";
import type { HistoryExportRecord } from "@social-harness/protocol";
import type { RecordsTable } from "./history.table.js";
import { exportRecord } from "./history-export.js";
import { toStoredRecord } from "./history.store.js";

const PAGE = 1000;

/** Every stored record of the daemon in `dataDir`, a page at a time, with the total first known. */
export function* readHistoryFile(
  dataDir: string,
): Generator<{ records: HistoryExportRecord[]; done: number; total: number }> {
  const db = new Database(path.join(path.resolve(dataDir), "daemon.db"), { readonly: true, fileMustExist: true });
  try {
    const { total } = db.prepare("SELECT count(*) AS total FROM records").get() as { total: number };
    const page = db.prepare("SELECT * FROM records WHERE id > ? ORDER BY id LIMIT ?");
    let after = 0;
    let done = 0;
    for (;;) {
      const rows = page.all(after, PAGE) as (Omit<RecordsTable, "id"> & { id: number })[];
      if (rows.length === 0) return;
      after = rows.at(-1)!.id;
      done += rows.length;
      yield { records: rows.map((row) => exportRecord(toStoredRecord(row))), done, total };
    }
  } finally {
    db.close();
  }
}

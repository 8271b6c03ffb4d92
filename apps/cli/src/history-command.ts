/**
 * `social-harness history export --data <dir> [--out <file>] [--keys <file>]` writes the daemon's
 * certified history as HistoryExportRecord JSON lines (docs/history-export.md), to the file or to
 * stdout, with a progress bar on stderr when stdout is a terminal, and with `--keys` the public
 * keys a reader needs to verify it. `history verify --data <dir>` or `--export <file> --keys
 * <file>` checks every record again offline, prints a verdict per conversation and exits 1 on
 * any fault.
 */
import { createWriteStream, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  auditConversation,
  auditHistory,
  openDataDirHistory,
  readExportFile,
  readHistoryFile,
  readHistoryKeys,
  readKeysFile,
  type ConversationVerdict,
  type UnreadableLine,
} from "@social-harness/daemon";

const USAGE =
  "usage: social-harness history export --data <dir> [--out <file>] [--keys <file>]\n" +
  "       social-harness history verify --data <dir> | --export <file> --keys <file> [--json]";

function progressBar(done: number, total: number): string {
  const width = 30;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} records`;
}

export async function runHistoryCommand(argv: readonly string[]): Promise<void> {
  const [verb, ...rest] = argv;
  switch (verb) {
    case "export":
      return runExport(rest);
    case "verify":
      return runVerify(rest);
    default:
      throw new Error(USAGE);
  }
}

async function runExport(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: { data: { type: "string" }, out: { type: "string" }, keys: { type: "string" } },
    strict: true,
  });
  if (values.data === undefined) throw new Error("--data <dir> is required");
  if (values.keys !== undefined) {
    writeFileSync(values.keys, `${JSON.stringify(readHistoryKeys(values.data), null, 2)}\n`);
  }
  const out: NodeJS.WritableStream = values.out === undefined ? process.stdout : createWriteStream(values.out);
  const showProgress = process.stdout.isTTY === true;
  try {
    for (const { records, done, total } of readHistoryFile(values.data)) {
      const chunk = records.map((record) => `${JSON.stringify(record)}\n`).join("");
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
      if (showProgress) process.stderr.write(progressBar(done, total));
    }
    if (showProgress) process.stderr.write("\n");
  } finally {
    if (out !== process.stdout) await new Promise<void>((resolve) => out.end(() => resolve()));
  }
}

function runVerify(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      data: { type: "string" },
      export: { type: "string" },
      keys: { type: "string" },
      json: { type: "boolean", default: false },
    },
    strict: true,
  });
  const fromData = values.data !== undefined;
  if (fromData === (values.export !== undefined)) throw new Error(`give --data or --export\n${USAGE}`);
  if (values.export !== undefined && values.keys === undefined) {
    throw new Error("--export needs --keys <file> (written by `history export --keys`)");
  }
  if (fromData && values.keys !== undefined)
    throw new Error("--keys goes with --export; --data uses the daemon's keys");
  const report = values.json ? jsonReport() : textReport();
  let unreadable: UnreadableLine[] = [];
  if (values.data !== undefined) {
    const history = openDataDirHistory(values.data);
    try {
      for (const { conv, records } of history.conversations()) {
        report.verdict(auditConversation(conv, records, history.keys, history.states.get(conv)));
      }
    } finally {
      history.close();
    }
  } else {
    const keys = readKeysFile(values.keys!);
    const read = readExportFile(values.export!);
    unreadable = read.unreadable;
    for (const line of unreadable) report.unreadable(line);
    for (const verdict of auditHistory(read.records, keys)) report.verdict(verdict);
  }
  if (!report.finish(unreadable.length)) process.exitCode = 1;
  return Promise.resolve();
}

interface Report {
  verdict(verdict: ConversationVerdict): void;
  unreadable(line: UnreadableLine): void;
  /** Prints the summary; true when nothing was faulty. */
  finish(unreadable: number): boolean;
}

function tally() {
  const counts = { conversations: 0, records: 0, faulty: 0 };
  return {
    counts,
    add: (verdict: ConversationVerdict) => {
      counts.conversations++;
      counts.records += verdict.records;
      if (!verdict.ok) counts.faulty++;
    },
  };
}

function textReport(): Report {
  const { counts, add } = tally();
  const write = (line: string) => process.stdout.write(`${line}\n`);
  return {
    verdict(verdict) {
      add(verdict);
      const records = `${verdict.records} record${verdict.records === 1 ? "" : "s"}`;
      const awaiting = verdict.awaiting === undefined ? "" : `; not received yet: seq ${verdict.awaiting.join(", ")}`;
      write(`${verdict.ok ? "ok   " : "FAULT"}  ${verdict.conversation}  (${records}${awaiting})`);
      for (const fault of verdict.faults)
        write(`       ${fault.seq === 0 ? "conversation" : `seq ${fault.seq}`}: ${fault.problem}`);
    },
    unreadable(line) {
      write(`FAULT  line ${line.line}: ${line.problem}`);
    },
    finish(unreadable) {
      const faulty = counts.faulty + unreadable;
      write(
        `${counts.conversations} conversation${counts.conversations === 1 ? "" : "s"}, ${counts.records} records: ` +
          (faulty === 0
            ? "every record verifies"
            : `${counts.faulty} faulty conversations, ${unreadable} unreadable lines`),
      );
      return faulty === 0;
    },
  };
}

function jsonReport(): Report {
  const { counts, add } = tally();
  const write = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
  return {
    verdict(verdict) {
      add(verdict);
      write(verdict);
    },
    unreadable(line) {
      write({ unreadable: line });
    },
    finish(unreadable) {
      const ok = counts.faulty + unreadable === 0;
      write({ summary: { ...counts, unreadable, ok } });
      return ok;
    },
  };
}

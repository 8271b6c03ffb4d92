/**
 * `social-harness history export --data <dir> [--out <file>]`: writes the daemon's certified
 * history as HistoryExportRecord JSON lines (docs/history-export.md), to the file or to stdout,
 * with a progress bar on stderr when stdout is a terminal.
 */
import { createWriteStream } from "node:fs";
import { parseArgs } from "node:util";
import { readHistoryFile } from "@social-harness/daemon";

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

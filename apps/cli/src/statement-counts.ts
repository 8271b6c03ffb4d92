/**
 * `SOCIAL_HARNESS_STATEMENT_COUNTS=<file>`: a debug switch that counts the daemon's database
 * statements and keeps their running totals in <file> as one JSON object, rewritten at most every
 * 100 ms while they change. Measuring tools read it before and after a burst of requests
 * (docs/performance.md). The only place this variable is read.
 */
import { writeFileSync } from "node:fs";
import { createStatementCounter, type StatementCounter } from "@social-harness/sqlite";

export function countStatementsTo(file: string | undefined): StatementCounter | undefined {
  if (file === undefined || file === "") return undefined;
  const counter = createStatementCounter();
  let written = "";
  const write = () => {
    const text = JSON.stringify(counter.counts);
    if (text === written) return;
    writeFileSync(file, text);
    written = text;
  };
  setInterval(write, 100).unref();
  process.once("exit", write);
  return counter;
}

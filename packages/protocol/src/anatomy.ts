/**
 * Latency anatomy: monotonic timestamps (CLOCK_MONOTONIC through process.hrtime.bigint, comparable
 * across the processes of one machine) at named hops of an operation, for the bench's waterfall.
 * Off unless a composition root enables it; then each call to `hop` costs one boolean check.
 * Hops are buffered and appended as JSON lines to one file shared by every process and thread.
 */
import { appendFileSync, readFileSync } from "node:fs";

export interface AnatomyOptions {
  /** The file every process appends its hops to. */
  readonly file: string;
  /** Who records: "router", a daemon's name, "bench". */
  readonly label: string;
}

/** One recorded hop: who, which hop, when (ns, monotonic) and an optional correlation key. */
export interface AnatomyHop {
  readonly label: string;
  readonly hop: string;
  readonly ns: bigint;
  readonly key?: string;
}

const FLUSH_MS = 100;

let enabled = false;
let current: AnatomyOptions | undefined;
let pending: string[] = [];

function flush(): void {
  if (current === undefined || pending.length === 0) return;
  const text = pending.join("");
  pending = [];
  appendFileSync(current.file, text);
}

/** Starts recording hops in this process (or thread). Idempotent for the same options. */
export function enableAnatomy(options: AnatomyOptions): void {
  if (enabled) return;
  enabled = true;
  current = options;
  setInterval(flush, FLUSH_MS).unref();
  process.once("exit", flush);
}

/** The options this thread records with, to hand to a worker thread; undefined when off. */
export function anatomyOptions(): AnatomyOptions | undefined {
  return current;
}

/** Records that `name` happened now. `key` correlates hops of one operation (a PostId, a name). */
export function hop(name: string, key?: string): void {
  if (!enabled) return;
  pending.push(line(name, process.hrtime.bigint(), key));
}

function line(name: string, ns: bigint, key: string | undefined): string {
  return `${JSON.stringify({ l: current!.label, h: name, t: ns.toString(), ...(key === undefined ? {} : { k: key }) })}\n`;
}

/** The monotonic clock when recording, for a hop whose key is known only later; else undefined. */
export function anatomyClock(): bigint | undefined {
  return enabled ? process.hrtime.bigint() : undefined;
}

/** Records a hop at a time read earlier with anatomyClock (nothing when that was undefined). */
export function hopAt(name: string, ns: bigint | undefined, key?: string): void {
  if (ns === undefined || !enabled) return;
  pending.push(line(name, ns, key));
}

/** Writes what is buffered now (the bench calls nothing; processes flush on a timer and at exit). */
export function flushAnatomy(): void {
  flush();
}

/** Reads an anatomy file back; lines that do not parse (a torn final line) are skipped. */
export function readAnatomy(file: string): AnatomyHop[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const hops: AnatomyHop[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      const v = JSON.parse(line) as { l: string; h: string; t: string; k?: string };
      hops.push({ label: v.l, hop: v.h, ns: BigInt(v.t), ...(v.k === undefined ? {} : { key: v.k }) });
    } catch {
      continue;
    }
  }
  return hops.sort((a, b) => (a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0));
}

/**
 * What a batch of operations costs each process: CPU time from /proc/<pid>/stat (utime + stime,
 * every thread of the process) or, when the servers run under valgrind's callgrind, instructions
 * executed (zeroed before the batch, dumped after it). CPU time holds on a shared machine where
 * wall time does not; instruction counts repeat almost exactly from run to run.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** CPU milliseconds a process has used so far, all threads, user and system. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** Waits until none of the processes used CPU for `windowMs` (they finished the batch's work). */
export async function quiet(pids: readonly number[], windowMs = 400, maxMs = 30_000): Promise<void> {
  const started = Date.now();
  let last = pids.map(cpuMs);
  while (Date.now() - started < maxMs) {
    await sleep(windowMs);
    const now = pids.map(cpuMs);
    if (now.every((v, i) => v === last[i])) return;
    last = now;
  }
}

export interface Meter {
  /** "ms" of CPU time or "instructions". */
  readonly unit: "ms" | "instructions";
  begin(pids: readonly number[]): Promise<void>;
  /** What each process used since begin, in the meter's unit. */
  end(pids: readonly number[]): Promise<number[]>;
}

export function cpuMeter(): Meter {
  let start = new Map<number, number>();
  return {
    unit: "ms",
    begin(pids) {
      start = new Map(pids.map((pid) => [pid, cpuMs(pid)]));
      return Promise.resolve();
    },
    end(pids) {
      return Promise.resolve(pids.map((pid) => cpuMs(pid) - (start.get(pid) ?? 0)));
    },
  };
}

/** The valgrind command line the servers run under for callgrindMeter. */
export function callgrindWrap(dir: string): string[] {
  return ["valgrind", "--tool=callgrind", "--quiet", `--callgrind-out-file=${path.join(dir, "cg.%p")}`];
}

/** The instruction total of the newest dump of a process. */
function lastDumpTotal(dir: string, pid: number): number {
  const dumps = readdirSync(dir)
    .filter((f) => f.startsWith(`cg.${pid}.`))
    .sort((a, b) => Number(a.split(".").pop()) - Number(b.split(".").pop()));
  const newest = dumps.at(-1);
  if (newest === undefined) return Number.NaN;
  const text = readFileSync(path.join(dir, newest), "utf8");
  const total = /^(?:summary|totals):\s+(\d+)/m.exec(text)?.[1];
  return total === undefined ? Number.NaN : Number(total);
}

export function callgrindMeter(dir: string): Meter {
  const control = (flag: string, pid: number) =>
    execFileSync("callgrind_control", [flag, String(pid)], { stdio: "pipe", timeout: 120_000 });
  return {
    unit: "instructions",
    begin(pids) {
      for (const pid of pids) control("--zero", pid);
      return Promise.resolve();
    },
    async end(pids) {
      for (const pid of pids) control("--dump", pid);
      await sleep(200);
      return pids.map((pid) => lastDumpTotal(dir, pid));
    },
  };
}

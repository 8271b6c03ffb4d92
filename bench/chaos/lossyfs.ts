/**
 * The file system that forgets (`lossyfs/`, C against libfuse3), built on first use into
 * node_modules/.cache and mounted over a data directory. `cut()` is the power cut: everything not
 * fsync'd is gone, and the mount comes back with what was durable. Root and /dev/fuse are needed;
 * `lossyfsUnavailable()` says in one line why it cannot run here.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
// From sources (vitest) or from bench/dist/chaos (npm run chaos).
const root = path.resolve(here, here.includes(`${path.sep}dist${path.sep}`) ? "../../.." : "../..");
const SOURCES = ["lossyfs.c", "ops.c", "lossyfs.h"].map((f) => path.join(root, "bench/chaos/lossyfs", f));

let built: Promise<string> | undefined;

/** Compiles lossyfs once per version of its sources; resolves to the binary. */
export function buildLossyfs(): Promise<string> {
  built ??= (async () => {
    const hash = createHash("sha256");
    for (const file of SOURCES) hash.update(readFileSync(file));
    const dir = path.join(root, "node_modules/.cache/lossyfs");
    const binary = path.join(dir, `lossyfs-${hash.digest("hex").slice(0, 16)}`);
    if (existsSync(binary)) return binary;
    await mkdir(dir, { recursive: true });
    const flags = (await run("pkg-config", ["--cflags", "--libs", "fuse3"])).stdout.trim().split(/\s+/);
    const sources = SOURCES.filter((f) => f.endsWith(".c"));
    const temporary = `${binary}.${process.pid}.tmp`;
    await run("cc", ["-O2", "-Wall", "-o", temporary, ...sources, ...flags]);
    await rename(temporary, binary);
    return binary;
  })();
  return built;
}

/** Why lossyfs cannot be mounted here, or undefined when it can (it builds it and mounts one). */
export async function lossyfsUnavailable(scratch: string): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return "not root";
  if (!existsSync("/dev/fuse")) return "no /dev/fuse";
  try {
    await buildLossyfs();
  } catch (error) {
    return `lossyfs does not build (cc, pkg-config and libfuse3-dev are needed): ${String(error).split("\n")[0]}`;
  }
  // Runs side by side probe at once: each in a directory of its own.
  const probe = await mkdtemp(path.join(scratch, "lossyfs-probe-"));
  try {
    const disk = await Lossyfs.mount(probe);
    await disk.unmount();
    return undefined;
  } catch (error) {
    return `lossyfs does not mount: ${String(error).split("\n")[0]}`;
  } finally {
    await rm(probe, { recursive: true, force: true });
  }
}

export class Lossyfs {
  private proc: ChildProcess | undefined;
  private exited: Promise<number | null> = Promise.resolve(null);
  /** Power cuts so far. */
  cuts = 0;
  /** What the last cut dropped: `<name>:<pages>` per file written since its last sync, and the total. */
  dropped = "";
  private output = "";

  private constructor(
    /** Where the data lives: `<dir>/mount` is the data directory, `backing` and `state` its disk. */
    readonly dir: string,
    private readonly binary: string,
  ) {}

  get mount(): string {
    return path.join(this.dir, "mount");
  }

  static async mount(dir: string): Promise<Lossyfs> {
    const disk = new Lossyfs(dir, await buildLossyfs());
    for (const sub of ["mount", "backing"]) await mkdir(path.join(dir, sub), { recursive: true });
    await disk.start();
    return disk;
  }

  private async start(): Promise<void> {
    const proc = spawn(this.binary, [path.join(this.dir, "backing"), path.join(this.dir, "state"), this.mount], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.proc = proc;
    this.exited = new Promise((resolve) => proc.once("exit", (code) => resolve(code)));
    let stderr = "";
    proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      this.output = "";
      proc.stdout.on("data", (chunk: Buffer) => {
        this.output += chunk.toString();
        if (this.output.includes("mounted")) resolve();
      });
      void this.exited.then((code) => reject(new Error(`lossyfs exited with ${code}: ${stderr.trim()}`)));
    });
  }

  /**
   * The power cut. Every process using the mount must be dead already (SIGKILL'd and reaped):
   * lossyfs finishes the request in progress, unmounts without saving, and mounts again with only
   * what was fsync'd.
   */
  async cut(): Promise<void> {
    await this.stopWith("SIGUSR1");
    this.cuts++;
    this.dropped = /^dropped (.*)$/m.exec(this.output)?.[1] ?? "";
    await this.start();
  }

  /** A clean unmount and a mount again: everything written is kept (a clean shutdown). */
  async remount(): Promise<void> {
    await this.unmount();
    await this.start();
  }

  /** A clean unmount: everything written is kept (a clean shutdown). */
  async unmount(): Promise<void> {
    await this.stopWith("SIGTERM");
  }

  private async stopWith(signal: NodeJS.Signals): Promise<void> {
    const proc = this.proc;
    if (proc === undefined) return;
    this.proc = undefined;
    proc.kill(signal);
    const code = await this.exited;
    if (code !== 0) throw new Error(`lossyfs ended with ${code} on ${signal}`);
  }

  /** Unmounts whatever state it is in (the trial's cleanup) and removes its directory. */
  async dispose(): Promise<void> {
    await this.unmount().catch(() => undefined);
    await run("umount", ["-l", this.mount]).catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }
}

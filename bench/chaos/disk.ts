/**
 * A small tmpfs the trial mounts as one daemon's data directory, fills to the last byte, frees and
 * unmounts (the machine runs the trials as root, as the system tests do). A full tmpfs behaves like
 * any full disk: every write fails with ENOSPC until space comes back.
 */
import { execFile } from "node:child_process";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export class Tmpfs {
  private constructor(readonly mount: string) {}

  /** Mounts a tmpfs of `megabytes` at `mount` (created if missing). */
  static async mount(mount: string, megabytes: number): Promise<Tmpfs> {
    await mkdir(mount, { recursive: true });
    await run("mount", ["-t", "tmpfs", "-o", `size=${megabytes}m`, "tmpfs", mount]);
    return new Tmpfs(mount);
  }

  private get filler(): string {
    return path.join(this.mount, "filler");
  }

  /** Writes zeros until the filesystem is full. */
  async fill(): Promise<void> {
    // dd ends with ENOSPC once the disk is full: that is the point.
    await run("dd", ["if=/dev/zero", `of=${this.filler}`, "bs=64k"]).catch(() => undefined);
  }

  async free(): Promise<void> {
    await rm(this.filler, { force: true });
  }

  /** Unmounts (lazily, should a process still hold a file) and removes the mount point. */
  async unmount(): Promise<void> {
    await run("umount", ["-l", this.mount]).catch(() => undefined);
    await rm(this.mount, { recursive: true, force: true });
  }
}

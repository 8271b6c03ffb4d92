/**
 * A secret file created once and never rewritten: written whole to a temporary file, fsync'd,
 * linked into place (which fails when another process was first; then theirs is read) and its
 * directory fsync'd, so neither a crash nor a power cut leaves it empty or forgets its name.
 */
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import path from "node:path";

function syncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The file's trimmed content, created with `create()` and mode 0600 when missing. */
export function readOrCreateSecret(file: string, create: () => string): string {
  if (!existsSync(file)) {
    const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    const fd = openSync(temporary, "wx", 0o600);
    try {
      writeSync(fd, `${create()}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temporary, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      unlinkSync(temporary);
    }
    syncDirectory(path.dirname(file));
  }
  chmodSync(file, 0o600);
  return readFileSync(file, "utf8").trim();
}

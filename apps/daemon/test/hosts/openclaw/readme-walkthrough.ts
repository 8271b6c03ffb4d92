/**
 * The README's OpenClaw walk-through as data, read from README.md itself: the config written
 * first, the install command, the channel section merged after it and the command that runs the
 * gateway. Each is the fenced block after its `<!-- openclaw-walkthrough:<step> -->` marker, so
 * the real-gateway test runs exactly what a new user reads.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const README = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../../README.md");

export interface Walkthrough {
  readonly config: Record<string, unknown>;
  /** The install command's arguments after `openclaw`. */
  readonly install: readonly string[];
  readonly channel: Record<string, unknown>;
  /** The run command's arguments after `openclaw`. */
  readonly run: readonly string[];
}

function block(readme: string, step: string): string {
  const marker = `<!-- openclaw-walkthrough:${step} -->`;
  const at = readme.indexOf(marker);
  if (at < 0) throw new Error(`README.md has no ${marker}`);
  const fenced = /```[a-z]*\n([\s\S]*?)```/.exec(readme.slice(at + marker.length));
  if (fenced === null) throw new Error(`README.md has no fenced block after ${marker}`);
  return fenced[1]!.trim();
}

function command(line: string): string[] {
  const words = line.split(/\s+/);
  if (words[0] !== "openclaw") throw new Error(`not an openclaw command: ${line}`);
  return words.slice(1);
}

export function readWalkthrough(): Walkthrough {
  const readme = readFileSync(README, "utf8");
  return {
    config: JSON.parse(block(readme, "config")) as Record<string, unknown>,
    install: command(block(readme, "install")),
    channel: JSON.parse(block(readme, "channel")) as Record<string, unknown>,
    run: command(block(readme, "run")),
  };
}

/** `patch` merged into `base`: objects key by key, anything else replaced. */
export function deepMerge(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const current = merged[key];
    merged[key] =
      typeof value === "object" &&
      value !== null &&
      !Array.isArray(value) &&
      typeof current === "object" &&
      current !== null &&
      !Array.isArray(current)
        ? deepMerge(current as Record<string, unknown>, value as Record<string, unknown>)
        : value;
  }
  return merged;
}

/**
 * Once per run of the `openclaw` project: install the real host into the cache (when it is not
 * there yet) and pack the plugin as `npm pack` makes it for users. Tests read both with inject().
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { ensureOpenClawHost, type OpenClawHost } from "./host-install.js";

declare module "vitest" {
  export interface ProvidedContext {
    openclawHost: OpenClawHost;
    openclawPluginTarball: string;
  }
}

const PLUGIN_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../../packages/openclaw");

export default async function setup(project: TestProject): Promise<() => void> {
  const host = await ensureOpenClawHost();
  const packDir = mkdtempSync(path.join(tmpdir(), "sh-openclaw-pack-"));
  const packed = spawnSync("npm", ["pack", "--pack-destination", packDir], { cwd: PLUGIN_DIR, encoding: "utf8" });
  if (packed.status !== 0) throw new Error(`npm pack failed:\n${packed.stdout}\n${packed.stderr}`);
  const tarball = readdirSync(packDir).find((name) => name.endsWith(".tgz"));
  if (tarball === undefined) throw new Error(`npm pack wrote no tarball into ${packDir}`);
  project.provide("openclawHost", host);
  project.provide("openclawPluginTarball", path.join(packDir, tarball));
  return () => rmSync(packDir, { recursive: true, force: true });
}

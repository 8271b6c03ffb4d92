/**
 * Who may register a new name at this router (issue 13): anyone (`open`), a daemon presenting a
 * registration token the operator issued (`token`), or a name and key the operator listed
 * (`keys`). `open` is the default only on loopback; a router reachable from elsewhere must be
 * told. A registered name keeps linking with its key whatever the mode, until the operator
 * withdraws it (names.ts); admission decides only who binds a free name.
 */
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { checkPublicKey, decodeBase64url, isAgentName } from "@social-harness/protocol";

export type Admission =
  { readonly mode: "open" } | { readonly mode: "token" } | { readonly mode: "keys"; readonly allowedKeysFile: string };

export type AdmissionMode = Admission["mode"];

export const ADMISSION_MODES: readonly AdmissionMode[] = ["open", "token", "keys"];

/** Whether `host` (as `--listen` gives it) is reachable only from this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "localhost" || bare === "::1") return true;
  return isIP(bare) === 4 && bare.split(".")[0] === "127";
}

/** The admission a router listening on `host` runs with; throws when it must be chosen. */
export function chooseAdmission(host: string, chosen: Admission | undefined): Admission {
  if (chosen !== undefined) return chosen;
  if (isLoopbackHost(host)) return { mode: "open" };
  throw new Error(
    `the router listens on ${host}, which is not loopback, so choose who may register a name: ` +
      "--admission token (daemons present a token from `social-harness router token create`), " +
      "--admission keys --allowed-keys <file> (listed names and keys), or --admission open " +
      "(anyone who reaches the router claims any free name)",
  );
}

export type AllowedKeysRead =
  | { readonly ok: true; readonly keys: ReadonlyMap<string, Uint8Array> }
  | { readonly ok: false; readonly problems: readonly string[] };

/**
 * Reads an allowed-keys file: one `<agent name> <public key>` per line, the key in base64url as
 * `social-harness identity` prints it; `#` starts a comment; blank lines are ignored. A name may
 * appear once; every key must be a usable ed25519 key (no small-order point).
 */
export function parseAllowedKeys(text: string): AllowedKeysRead {
  const keys = new Map<string, Uint8Array>();
  const problems: string[] = [];
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.replace(/#.*$/, "").trim();
    if (line === "") continue;
    const problem = readEntry(line, keys);
    if (problem !== undefined) problems.push(`line ${index + 1}: ${problem}`);
  }
  return problems.length === 0 ? { ok: true, keys } : { ok: false, problems };
}

/** Adds one `<name> <key>` entry to `keys`, or says what is wrong with it. */
function readEntry(line: string, keys: Map<string, Uint8Array>): string | undefined {
  const fields = line.split(/\s+/);
  if (fields.length !== 2) return 'expected "<agent name> <public key>"';
  const [name, encoded] = fields as [string, string];
  if (!isAgentName(name)) return `${JSON.stringify(name)} is not an agent name`;
  if (keys.has(name)) return `${name} is listed twice`;
  const key = decodeBase64url(encoded);
  if (key === undefined || !checkPublicKey(key).ok)
    return `the key of ${name} is not an ed25519 public key in base64url`;
  keys.set(name, key);
  return undefined;
}

/** Reads and parses the allowed-keys file; throws naming every problem. */
export function loadAllowedKeys(file: string): ReadonlyMap<string, Uint8Array> {
  const read = parseAllowedKeys(readFileSync(file, "utf8"));
  if (!read.ok) throw new Error(`${file} is not a valid allowed-keys file:\n  ${read.problems.join("\n  ")}`);
  return read.keys;
}

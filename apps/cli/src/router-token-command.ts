/**
 * `social-harness router token create | list | revoke`, against a router's data directory (or its
 * PostgreSQL database), with the router running or not:
 *
 *   create --data <dir> [--database postgres://...] [--name <agent>] [--expires 7d] [--out <file>]
 *     issues a registration token for a router that runs with `--admission token`. The token goes
 *     to stdout (or to a new file, mode 0600); the router keeps only its digest. Each token
 *     registers one name once, before it expires. Its id goes to stderr.
 *   list --data <dir> [--database postgres://...] [--json]
 *     every token issued, oldest first: its id, the name it registers, and whether it is usable,
 *     used (by whom), revoked or expired.
 *   revoke <id or token> --data <dir> [--database postgres://...]
 *     revokes an unused token, so it registers nothing; a name it registered already stays.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  createRegistrationToken,
  listRegistrationTokens,
  revokeRegistrationToken,
  type IssuedTokenInfo,
  type TokenState,
} from "@social-harness/router";

/** Where a router command finds the router's database: its data directory, and PostgreSQL if shared. */
export const STORAGE_OPTIONS = { data: { type: "string" }, database: { type: "string" } } as const;

export const TOKEN_OPTIONS = {
  ...STORAGE_OPTIONS,
  name: { type: "string" },
  expires: { type: "string", default: "7d" },
  out: { type: "string" },
} as const;

const USAGE = `usage:
  social-harness router token create --data <dir> [--database postgres://...] [--name <agent>] [--expires 7d] [--out <file>]
  social-harness router token list --data <dir> [--database postgres://...] [--json]
  social-harness router token revoke <id or token> --data <dir> [--database postgres://...]`;

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const MAX_TTL_MS = 365 * UNIT_MS.d;

/** `30m`, `12h`, `7d`: a lifetime of at most a year. */
export function parseExpiry(text: string): number {
  const match = /^([1-9]\d*)([mhd])$/.exec(text);
  if (match === null) throw new Error(`--expires takes minutes, hours or days such as 30m, 12h or 7d, not ${text}`);
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (ms > MAX_TTL_MS) throw new Error("--expires is at most 365d");
  return ms;
}

export function storageOf(values: { data?: string; database?: string }): { dataDir: string; database?: string } {
  if (values.data === undefined) throw new Error("--data <dir> is required (the router's data directory)");
  return { dataDir: values.data, ...(values.database === undefined ? {} : { database: values.database }) };
}

const iso = (ms: number) => new Date(ms).toISOString();

function stateText(state: TokenState): string {
  switch (state.kind) {
    case "usable":
      return "usable";
    case "used":
      return `used by ${state.by} at ${iso(state.at)}`;
    case "revoked":
      return `revoked at ${iso(state.at)}`;
    case "expired":
      return `expired at ${iso(state.at)}`;
  }
}

/** One line a token: id, the name it registers, when it expires, what it can still do. */
export function tokenTable(tokens: readonly IssuedTokenInfo[]): string {
  const rows = [
    ["id", "registers", "created", "expires", "state"],
    ...tokens.map((t) => [t.id, t.name ?? "any free name", iso(t.createdAt), iso(t.expiresAt), stateText(t.state)]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return (
    rows
      .map((row) =>
        row
          .map((cell, i) => cell.padEnd(widths[i]!))
          .join("  ")
          .trimEnd(),
      )
      .join("\n") + "\n"
  );
}

async function create(args: readonly string[]): Promise<void> {
  const { values } = parseArgs({ args: [...args], options: TOKEN_OPTIONS, strict: true });
  const issued = await createRegistrationToken({
    ...storageOf(values),
    name: values.name,
    ttlMs: parseExpiry(values.expires),
  });
  if (values.out === undefined) {
    process.stdout.write(`${issued.token}\n`);
  } else {
    // `wx`: a token file is never overwritten, so a used token is not silently replaced.
    writeFileSync(values.out, `${issued.token}\n`, { mode: 0o600, flag: "wx" });
  }
  const scope = issued.name === undefined ? "any free name" : issued.name;
  process.stderr.write(
    `registration token ${issued.id} for ${scope}, usable once until ${iso(issued.expiresAt)}` +
      `${values.out === undefined ? "" : ` (written to ${values.out})`}\n`,
  );
}

async function list(args: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...args],
    options: { ...STORAGE_OPTIONS, json: { type: "boolean", default: false } },
    strict: true,
  });
  const tokens = await listRegistrationTokens(storageOf(values));
  // JSON keeps every field: a token for any free name says so with a null name.
  if (values.json) process.stdout.write(`${JSON.stringify(tokens.map((t) => ({ ...t, name: t.name ?? null })))}\n`);
  else if (tokens.length === 0) process.stderr.write("this router has issued no registration tokens\n");
  else process.stdout.write(tokenTable(tokens));
}

/**
 * The one argument of `revoke` that is not an option or an option's value. A token id is the start
 * of a base64url digest, so one id in 64 starts with `-`, which parseArgs would take for an unknown
 * option: the target is found first, and only the options go to parseArgs. `--` still works.
 */
function revokeTarget(args: readonly string[]): { target: string | undefined; options: string[] } {
  const flags = Object.keys(STORAGE_OPTIONS).map((name) => `--${name}`);
  const options: string[] = [];
  const targets: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      targets.push(...args.slice(i + 1));
      break;
    }
    if (flags.includes(arg)) {
      options.push(arg, ...(i + 1 < args.length ? [args[++i]!] : []));
    } else if (flags.some((flag) => arg.startsWith(`${flag}=`))) {
      options.push(arg);
    } else {
      targets.push(arg);
    }
  }
  return { target: targets.length === 1 ? targets[0] : undefined, options };
}

async function revoke(args: readonly string[]): Promise<void> {
  const { target, options } = revokeTarget(args);
  const { values } = parseArgs({ args: options, options: STORAGE_OPTIONS, strict: true });
  if (target === undefined) throw new Error(`router token revoke takes one token id or token\n${USAGE}`);
  const outcome = await revokeRegistrationToken(storageOf(values), target);
  switch (outcome.kind) {
    case "revoked":
      process.stderr.write(`revoked registration token ${outcome.token.id}: it registers nothing now\n`);
      return;
    case "unchanged":
      process.stderr.write(`registration token ${outcome.token.id} was ${stateText(outcome.token.state)} already\n`);
      return;
    case "used":
      throw new Error(
        `registration token ${outcome.token.id} was ${stateText(outcome.token.state)}: revoking it would not ` +
          "withdraw the name; `social-harness router agent withdraw <name>` does",
      );
    case "unknown":
      throw new Error(`this router issued no registration token ${target}`);
  }
}

export async function runRouterTokenCommand(argv: readonly string[]): Promise<void> {
  const [verb, ...rest] = argv;
  switch (verb) {
    case "create":
      return create(rest);
    case "list":
      return list(rest);
    case "revoke":
      return revoke(rest);
    default:
      throw new Error(USAGE);
  }
}

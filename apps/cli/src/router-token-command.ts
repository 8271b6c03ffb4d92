/**
 * `social-harness router token create --data <dir> [--database postgres://...] [--name <agent>]
 * [--expires 7d] [--out <file>]`: issues a registration token for a router that runs with
 * `--admission token`. The token goes to stdout (or to a new file, mode 0600); the router keeps
 * only its digest. Each token registers one name once, before it expires.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createRegistrationToken } from "@social-harness/router";

export const TOKEN_OPTIONS = {
  data: { type: "string" },
  database: { type: "string" },
  name: { type: "string" },
  expires: { type: "string", default: "7d" },
  out: { type: "string" },
} as const;

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

export async function runRouterTokenCommand(argv: readonly string[]): Promise<void> {
  const [verb, ...rest] = argv;
  if (verb !== "create") {
    throw new Error(
      "usage: social-harness router token create --data <dir> [--database postgres://...] [--name <agent>] [--expires 7d] [--out <file>]",
    );
  }
  const { values } = parseArgs({ args: rest, options: TOKEN_OPTIONS, strict: true });
  if (values.data === undefined) throw new Error("--data <dir> is required (the router's data directory)");
  const issued = await createRegistrationToken({
    dataDir: values.data,
    database: values.database,
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
    `registration token for ${scope}, usable once until ${new Date(issued.expiresAt).toISOString()}` +
      `${values.out === undefined ? "" : ` (written to ${values.out})`}\n`,
  );
}

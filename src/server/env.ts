/**
 * The console's configuration, read from the environment once per process and validated with
 * zod (fail fast, SPEC §11/§12). Only this module reads `process.env`. The parsed value holds
 * token file paths, never tokens: owner tokens are read where a call is forwarded.
 */
import "server-only";
import * as z from "zod";

// A daemon's console name: lower-case letters, digits, `-` and `_`, safe in a URL path segment.
const DaemonNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "must be 1-63 characters of a-z, 0-9, - and _, starting with a letter or digit");

const DaemonUrlSchema = z
  .url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" })
  .transform((url) => url.replace(/\/+$/, ""));

export const DaemonConfigSchema = z.strictObject({
  name: DaemonNameSchema,
  url: DaemonUrlSchema,
  ownerTokenFile: z.string().min(1, "must name the daemon's owner.token file"),
});

const DaemonListSchema = z
  .array(DaemonConfigSchema)
  .min(1, "must list at least one daemon")
  .superRefine((daemons, ctx) => {
    const seen = new Set<string>();
    for (const [index, daemon] of daemons.entries()) {
      if (seen.has(daemon.name))
        ctx.addIssue({ code: "custom", path: [index, "name"], message: `"${daemon.name}" is listed twice` });
      seen.add(daemon.name);
    }
  });

export const ConsoleEnvSchema = z.object({
  SOCIAL_HARNESS_CONSOLE_DAEMONS: z
    .string({ error: "is required" })
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "must be a JSON array" });
        return z.NEVER;
      }
    })
    .pipe(DaemonListSchema),
  SOCIAL_HARNESS_CONSOLE_LOGIN_TOKEN: z.string({ error: "is required" }).min(16, "must be at least 16 characters"),
  SOCIAL_HARNESS_CONSOLE_SECRET: z.string({ error: "is required" }).min(32, "must be at least 32 characters"),
});

export type DaemonConfig = z.infer<typeof DaemonConfigSchema>;

/** The validated console configuration. */
export interface ConsoleEnv {
  readonly daemons: readonly DaemonConfig[];
  readonly loginToken: string;
  readonly sessionSecret: string;
}

export type ConsoleEnvParse =
  { readonly ok: true; readonly env: ConsoleEnv } | { readonly ok: false; readonly problems: readonly string[] };

/**
 * Parses an environment. On failure, `problems` names each bad variable and field; it never
 * repeats a secret value.
 */
export function parseConsoleEnv(env: Readonly<Record<string, string | undefined>>): ConsoleEnvParse {
  const parsed = ConsoleEnvSchema.safeParse(env);
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`) };
  }
  return {
    ok: true,
    env: {
      daemons: parsed.data.SOCIAL_HARNESS_CONSOLE_DAEMONS,
      loginToken: parsed.data.SOCIAL_HARNESS_CONSOLE_LOGIN_TOKEN,
      sessionSecret: parsed.data.SOCIAL_HARNESS_CONSOLE_SECRET,
    },
  };
}

// Next bundles the proxy and the app separately, so a module-level cache could exist twice in
// one process; the parsed value lives on globalThis instead.
const CACHE = Symbol.for("social-harness.console.env");
type EnvCache = { [CACHE]?: ConsoleEnv };

function loadConsoleEnv(): ConsoleEnvParse {
  const cache = globalThis as EnvCache;
  const cached = cache[CACHE];
  if (cached !== undefined) return { ok: true, env: cached };
  const parsed = parseConsoleEnv(process.env);
  if (parsed.ok) cache[CACHE] = parsed.env;
  return parsed;
}

const describeProblems = (problems: readonly string[]) =>
  `The console's environment is invalid:\n  ${problems.join("\n  ")}`;

/** The console's configuration, parsed on first use; throws if the environment is invalid. */
export function consoleEnv(): ConsoleEnv {
  const loaded = loadConsoleEnv();
  if (!loaded.ok) throw new Error(describeProblems(loaded.problems));
  return loaded.env;
}

/** The configured daemon with this name, if any. */
export function findDaemon(name: string): DaemonConfig | undefined {
  return consoleEnv().daemons.find((daemon) => daemon.name === name);
}

/**
 * Validates the environment at server start; on a problem prints every one and exits with
 * status 1, because Next keeps listening after a failed instrumentation hook.
 */
export function exitOnInvalidEnv(): void {
  const loaded = loadConsoleEnv();
  if (loaded.ok) return;
  console.error(describeProblems(loaded.problems));
  process.exit(1);
}

/**
 * The plugin's channel section of `openclaw.json` (`channels.social-harness`): which daemon the
 * OpenClaw agent speaks through and where its runtime token is. One OpenClaw gateway serves one
 * agent, so there is one account, `default`. The same schema, as JSON Schema, is in
 * `openclaw.plugin.json` for OpenClaw's cold config validation.
 */
import { readFileSync } from "node:fs";
import * as z from "zod";
import type { OpenClawConfig } from "./sdk.js";

export const CHANNEL_ID = "social-harness";
export const ACCOUNT_ID = "default";

const ChannelSectionSchema = z.strictObject({
  enabled: z.boolean().optional(),
  /** The daemon's MCP endpoint, e.g. `http://127.0.0.1:40123/mcp` (its ready line's `mcp`). */
  endpoint: z.url({ protocol: /^https?$/ }),
  /** A file holding the daemon's runtime token: its data directory's `runtime.token`. */
  tokenFile: z.string().min(1).optional(),
  /** Milliseconds one daemon request may take (default 60,000); a send past it is outcome-unknown. */
  requestTimeoutMs: z.int().min(1_000).max(600_000).optional(),
  /** Milliseconds a skipped dispatch waits for the turn OpenClaw's restart recovery runs (default 180,000). */
  recoveryWaitMs: z.int().min(1_000).max(3_600_000).optional(),
});

/** A resolved account: the section as validated, or why it cannot run. */
export type Account =
  | {
      readonly accountId: string;
      readonly configured: true;
      readonly enabled: boolean;
      readonly endpoint: URL;
      readonly tokenFile?: string;
      readonly requestTimeoutMs?: number;
      readonly recoveryWaitMs?: number;
    }
  | { readonly accountId: string; readonly configured: false; readonly enabled: false; readonly problem: string };

function sectionOf(cfg: OpenClawConfig): unknown {
  const channels = cfg.channels;
  if (typeof channels !== "object" || channels === null) return undefined;
  return (channels as Record<string, unknown>)[CHANNEL_ID];
}

/** Reads and validates the channel section; a missing or invalid one names what is wrong. */
export function resolveAccount(cfg: OpenClawConfig, accountId?: string | null): Account {
  const id = accountId ?? ACCOUNT_ID;
  const section = sectionOf(cfg);
  if (section === undefined) {
    return { accountId: id, configured: false, enabled: false, problem: `channels.${CHANNEL_ID} is not set` };
  }
  const parsed = ChannelSectionSchema.safeParse(section);
  if (!parsed.success) {
    const problem = parsed.error.issues
      .map((issue) => `channels.${CHANNEL_ID}${issue.path.map((key) => `.${String(key)}`).join("")}: ${issue.message}`)
      .join("; ");
    return { accountId: id, configured: false, enabled: false, problem };
  }
  const { enabled, endpoint, tokenFile, requestTimeoutMs, recoveryWaitMs } = parsed.data;
  return {
    accountId: id,
    configured: true,
    enabled: enabled ?? true,
    endpoint: new URL(endpoint),
    ...(tokenFile === undefined ? {} : { tokenFile }),
    ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
    ...(recoveryWaitMs === undefined ? {} : { recoveryWaitMs }),
  };
}

/**
 * The runtime token from `tokenFile`, or undefined to let the client read SOCIAL_HARNESS_TOKEN
 * from the gateway's environment.
 */
export function readToken(account: { readonly tokenFile?: string }): string | undefined {
  return account.tokenFile === undefined ? undefined : readFileSync(account.tokenFile, "utf8").trim();
}

/** Whether the owner lets this plugin see agent runs end (`plugins.entries.<id>.hooks.allowConversationAccess`). */
export function seesTurns(cfg: OpenClawConfig): boolean {
  const plugins = cfg.plugins as
    { entries?: Record<string, { hooks?: { allowConversationAccess?: unknown } }> } | undefined;
  return plugins?.entries?.[CHANNEL_ID]?.hooks?.allowConversationAccess === true;
}

/**
 * The registration a NanoClaw owner adds to `src/channels/index.ts`:
 * `registerChannelAdapter("social-harness", socialHarnessRegistration())`. NanoClaw configures
 * adapters through its environment (`.env`): the factory reads the daemon's endpoint and token
 * there and returns null, which NanoClaw skips, when the channel is not configured.
 */
import { readFileSync } from "node:fs";
import { createSocialHarnessAdapter, SOCIAL_HARNESS_DEFAULTS } from "./adapter.js";
import type { NanoClawChannelRegistration } from "./contract.js";

/** `SOCIAL_HARNESS_ENDPOINT`: the daemon's MCP endpoint. */
export const ENDPOINT_ENV = "SOCIAL_HARNESS_ENDPOINT";
/** `SOCIAL_HARNESS_TOKEN_FILE`: the daemon's `runtime.token`; else `SOCIAL_HARNESS_TOKEN` holds it. */
export const TOKEN_FILE_ENV = "SOCIAL_HARNESS_TOKEN_FILE";

export function socialHarnessRegistration(env: NodeJS.ProcessEnv = process.env): NanoClawChannelRegistration {
  return {
    defaults: SOCIAL_HARNESS_DEFAULTS,
    factory: () => {
      const endpoint = env[ENDPOINT_ENV];
      if (endpoint === undefined || endpoint === "") return null;
      const tokenFile = env[TOKEN_FILE_ENV];
      const token =
        tokenFile === undefined || tokenFile === "" ? env.SOCIAL_HARNESS_TOKEN : readFileSync(tokenFile, "utf8").trim();
      return createSocialHarnessAdapter({
        endpoint: new URL(endpoint),
        ...(token === undefined ? {} : { token }),
        log: (level, message) => console[level](`[social-harness] ${message}`),
      });
    },
  };
}

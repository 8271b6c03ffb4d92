/**
 * @social-harness/nanoclaw: a NanoClaw channel adapter over @social-harness/client. Register it in
 * NanoClaw's `src/channels/index.ts` with `socialHarnessRegistration()`, or build one adapter with
 * `createSocialHarnessAdapter`. The packed tarball carries the client inside (plugin/index.js), so
 * its declarations name NanoClaw's contract and nothing else.
 */
export { createSocialHarnessAdapter, SOCIAL_HARNESS_DEFAULTS, type SocialHarnessAdapterOptions } from "./adapter.js";
export type * from "./contract.js";
export { CHANNEL_TYPE, DAEMON_SENDER } from "./names.js";
export { ENDPOINT_ENV, socialHarnessRegistration, TOKEN_FILE_ENV } from "./registration.js";

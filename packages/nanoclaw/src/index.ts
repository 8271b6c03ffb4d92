/**
 * @social-harness/nanoclaw: a NanoClaw channel adapter over @social-harness/client. Register it in
 * NanoClaw's `src/channels/index.ts` with `socialHarnessRegistration()`, or build one adapter with
 * `createSocialHarnessAdapter`.
 */
export {
  createSocialHarnessAdapter,
  InboundRouteFailed,
  SOCIAL_HARNESS_DEFAULTS,
  type SocialHarnessAdapterOptions,
} from "./adapter.js";
export type * from "./contract.js";
export { outboundText, sendRow, type OutboundOutcome } from "./outbound.js";
export { ENDPOINT_ENV, socialHarnessRegistration, TOKEN_FILE_ENV } from "./registration.js";
export { CHANNEL_TYPE, renderDelivery, type RenderedMessage } from "./render.js";

/** @social-harness/router: the router service, for the command line and for tests. */
export { startRouter, type RouterOptions, type RunningRouter } from "./router.js";
export { ADMISSION_MODES, isLoopbackHost, type Admission, type AdmissionMode } from "./registry/admission.js";
export {
  createRegistrationToken,
  listRegistrationTokens,
  revokeRegistrationToken,
  type IssuedToken,
  type IssuedTokenInfo,
  type Revocation,
  type TokenOptions,
  type TokenState,
  type TokenStorage,
} from "./tokens.js";
export { withdrawRegisteredName, type WithdrawnName } from "./names.js";
export { RouterMetrics } from "./metrics/router-metrics.js";

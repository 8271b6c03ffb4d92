/** @social-harness/router: the router service, for the command line and for tests. */
export { startRouter, type RouterOptions, type RunningRouter } from "./router.js";

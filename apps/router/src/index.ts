/** @social-harness/router: the router service, for the command line and for tests. */
export { parseListen, ROUTER_OPTIONS, runRouterCommand } from "./main.js";
export { startRouter, type RouterOptions, type RunningRouter } from "./router.js";
export { withStatementCache } from "./db/statement-cache.js";
export { prepared } from "./db/prepared.js";

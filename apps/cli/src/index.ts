/**
 * @social-harness/cli: the `social-harness` command line. Each server command's option table is
 * exported so the compose test parses the exact same flags; `spawnServer` starts our servers as
 * child processes for the demo, the tests and the benchmarks.
 */
export { DAEMON_OPTIONS } from "./daemon-command.js";
export { parseListen } from "./listen.js";
export { ROUTER_OPTIONS } from "./router-command.js";
export { TOKEN_OPTIONS } from "./router-token-command.js";
export { spawnServer, type ServerProcess, type SpawnOptions } from "./spawn-server.js";
export { otlpProtocol, tracingRequested } from "./tracing-switch.js";

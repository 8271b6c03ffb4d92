/** @social-harness/daemon: the daemon, for the command line and for tests. */
export { startDaemon, type DaemonConfig, type RunningDaemon } from "./daemon.js";
export type { AppRouter } from "./owner/app-router.js";
export { DAEMON_OPTIONS } from "./main.js";
export { spawnServer, type ServerProcess, type SpawnOptions } from "./cli/spawn-server.js";

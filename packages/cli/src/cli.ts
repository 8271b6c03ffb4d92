/**
 * `social-harness <command>`: the one command line of Social Harness (SPEC §13).
 *   router   run a router            daemon   run an agent's daemon
 *   demo     run a local network     history  export a daemon's certified history
 */
import { runDaemonCommand } from "./daemon-command.js";
import { runRouterCommand } from "./router-command.js";

const USAGE = `usage:
  social-harness router --data <dir> [--listen 127.0.0.1:7700] [--database postgres://...]
  social-harness daemon --name <agent> --router ws://127.0.0.1:7700 --data <dir> [--listen 127.0.0.1:0] [--trust open|allowlist]
  social-harness demo [--data <dir>]
  social-harness history export --data <dir> [--out <file>]
`;

export async function main(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case "router":
      return runRouterCommand(rest);
    case "daemon":
      return runDaemonCommand(rest);
    case "demo": {
      const { runDemoCommand } = await import("./demo.js");
      return runDemoCommand(rest);
    }
    case "history": {
      const { runHistoryCommand } = await import("./history-command.js");
      return runHistoryCommand(rest);
    }
    default:
      process.stderr.write(USAGE);
      process.exitCode = command === undefined || command === "help" || command === "--help" ? 0 : 2;
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    process.stderr.write(`social-harness: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);

/**
 * `social-harness <command>`: the one command line of Social Harness (SPEC §13).
 *   router   run a router, issue, list and revoke its registration tokens, or withdraw a name
 *   daemon   run an agent's daemon   identity print a daemon's public key
 *   demo     run a local network     history  export or verify a daemon's certified history
 */
import { runDaemonCommand } from "./daemon-command.js";
import { runRouterCommand } from "./router-command.js";

const USAGE = `usage:
  social-harness router --data <dir> [--listen 127.0.0.1:7700] [--database postgres://...]
                        [--admission open|token|keys] [--allowed-keys <file>] [--metrics-listen [host:]port]
  social-harness router token create --data <dir> [--database postgres://...] [--name <agent>] [--expires 7d] [--out <file>]
  social-harness router token list --data <dir> [--database postgres://...] [--json]
  social-harness router token revoke <id or token> --data <dir> [--database postgres://...]
  social-harness router agent withdraw <name> --data <dir> [--database postgres://...]
  social-harness daemon --name <agent> --router ws://127.0.0.1:7700 --data <dir> [--listen 127.0.0.1:0]
                        [--trust open|allowlist] [--registration-token <file>]
  social-harness identity --data <dir> [--name <agent>]
  social-harness demo [--data <dir>] [--no-traffic]
  social-harness history export --data <dir> [--out <file>] [--keys <file>]
  social-harness history verify --data <dir> | --export <file> --keys <file>
`;

export async function main(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case "router":
      return runRouterCommand(rest);
    case "daemon":
      return runDaemonCommand(rest);
    case "identity": {
      const { runIdentityCommand } = await import("./identity-command.js");
      return runIdentityCommand(rest);
    }
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

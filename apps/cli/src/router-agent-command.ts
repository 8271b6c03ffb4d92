/**
 * `social-harness router agent withdraw <name> --data <dir> [--database postgres://...]`: withdraws
 * a registered name for good, with the router running or not. Every router sharing the database
 * closes the name's link within a second and refuses it from then on; no key registers it again.
 */
import { parseArgs } from "node:util";
import { withdrawRegisteredName } from "@social-harness/router";
import { STORAGE_OPTIONS, storageOf } from "./router-token-command.js";

const USAGE = "usage:\n  social-harness router agent withdraw <name> --data <dir> [--database postgres://...]";

async function withdraw(args: readonly string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: STORAGE_OPTIONS,
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new Error(`router agent withdraw takes one agent name\n${USAGE}`);
  const name = positionals[0]!;
  const withdrawn = await withdrawRegisteredName(storageOf(values), name);
  if (withdrawn === undefined) throw new Error(`no key holds ${name} at this router`);
  process.stderr.write(
    `withdrew ${withdrawn.name} from key ${withdrawn.publicKey} (registered ` +
      `${new Date(withdrawn.registeredAt).toISOString()}): its link closes within a second, and no key ` +
      "registers the name again\n",
  );
}

export async function runRouterAgentCommand(argv: readonly string[]): Promise<void> {
  const [verb, ...rest] = argv;
  if (verb === "withdraw") return withdraw(rest);
  throw new Error(USAGE);
}

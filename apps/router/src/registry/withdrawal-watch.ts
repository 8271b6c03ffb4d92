/**
 * Every router learns of a withdrawn name (`router agent withdraw`, run against its database by
 * another process) by reading the withdrawals logged past the last one it saw, once a second: the
 * CLI writes the database, and routers sharing PostgreSQL, or the one router of a SQLite file, are
 * other processes. Each withdrawal is applied once (LinkServer.withdraw).
 */
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { RouterDatabase } from "../db/database.js";
import { lastWithdrawalId, withdrawalsAfter, type Withdrawal } from "./withdrawals.store.js";

const WITHDRAWAL_POLL_MS = 1_000;

export interface WithdrawalWatch {
  /** Stops reading; resolves once a read under way has ended, before the store closes. */
  stop(): Promise<void>;
}

export async function watchWithdrawals(
  db: Kysely<RouterDatabase>,
  apply: (withdrawal: Withdrawal) => void,
  log: Logger,
): Promise<WithdrawalWatch> {
  // Withdrawals before the start concern no session of this process; registration refuses their names.
  let seen = await lastWithdrawalId(db);
  let running: Promise<void> | undefined;
  const poll = () =>
    (running ??= (async () => {
      try {
        for (const withdrawal of await withdrawalsAfter(db, seen)) {
          apply(withdrawal);
          seen = withdrawal.id;
        }
      } finally {
        running = undefined;
      }
    })());
  const timer = setInterval(() => {
    poll().catch((error: unknown) => log.error({ err: error }, "reading withdrawn names failed"));
  }, WITHDRAWAL_POLL_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}

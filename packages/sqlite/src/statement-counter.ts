/**
 * A debug count of the statements one better-sqlite3 connection runs: reads, writes and
 * transactions (BEGIN and COMMIT as Kysely sends them). It exists to measure what a send or a
 * read costs; it is off unless the command line turns it on, and then costs one branch per query.
 */

export interface StatementCounts {
  /** Every statement run, transaction control included. */
  statements: number;
  reads: number;
  writes: number;
  /** BEGINs; with WAL and synchronous=FULL every committed write transaction is one fsync. */
  transactions: number;
  commits: number;
  rollbacks: number;
  /** PRAGMA statements (the daemon's relaxed transactions switch synchronous off and on). */
  pragmas: number;
  /** Statements outside BEGIN … COMMIT; a write among them is a transaction of its own. */
  autocommitWrites: number;
}

export interface StatementCounter {
  readonly counts: Readonly<StatementCounts>;
  /** Called for each statement with its SQL and whether it returns rows. */
  count(sql: string, reader: boolean): void;
}

export function createStatementCounter(): StatementCounter {
  const counts: StatementCounts = {
    statements: 0,
    reads: 0,
    writes: 0,
    transactions: 0,
    commits: 0,
    rollbacks: 0,
    pragmas: 0,
    autocommitWrites: 0,
  };
  let open = false;
  return {
    counts,
    count(sql, reader) {
      counts.statements++;
      const head = sql.trimStart().slice(0, 8).toLowerCase();
      if (head.startsWith("begin")) {
        counts.transactions++;
        open = true;
      } else if (head.startsWith("commit")) {
        counts.commits++;
        open = false;
      } else if (head.startsWith("rollback")) {
        counts.rollbacks++;
        open = false;
      } else if (head.startsWith("pragma")) {
        counts.pragmas++;
      } else if (reader) {
        counts.reads++;
      } else {
        counts.writes++;
        if (!open) counts.autocommitWrites++;
      }
    },
  };
}

/**
 * Prepared better-sqlite3 statements for the hot paths (SPEC §3), on Kysely's one connection but
 * without its per-query building, locking and promises. A statement runs at once when its caller
 * holds the connection (it passes a transaction) or when no transaction is open on it; otherwise it
 * waits its turn through Kysely, so it never runs inside another caller's transaction.
 */
import type Database from "better-sqlite3";
import { CompiledQuery, type Kysely } from "kysely";
import type { StatementCounter } from "@social-harness/sqlite";
import type { WalSync } from "./wal-sync.js";

// Keyed by Kysely's adapter: one per database, shared by its transactions.
const registry = new WeakMap<object, RawStatements>();

type Handle = Pick<Kysely<unknown>, "isTransaction" | "getExecutor" | "executeQuery">;

export class RawStatements {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(
    private readonly sqlite: Database.Database,
    private readonly sync: WalSync,
    private readonly counter?: StatementCounter,
  ) {}

  /** Makes these statements reachable from `db` and every transaction of it. */
  attach(db: Handle): void {
    registry.set(db.getExecutor().adapter, this);
  }

  static of(db: Handle): RawStatements {
    const raw = registry.get(db.getExecutor().adapter);
    if (raw === undefined) throw new Error("this database has no raw statements attached");
    return raw;
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.sqlite.prepare(sql);
      this.statements.set(sql, statement);
    }
    this.counter?.count(sql, statement.reader);
    return statement;
  }

  private now(db: Handle): boolean {
    return db.isTransaction || !this.sqlite.inTransaction;
  }

  /** Rows of a read. */
  all<Row>(db: Handle, sql: string, parameters: readonly unknown[]): Row[] | Promise<Row[]> {
    if (this.now(db)) return this.statement(sql).all(...parameters) as Row[];
    return db.executeQuery<Row>(CompiledQuery.raw(sql, [...parameters])).then((result) => [...result.rows]);
  }

  /** The changed row count of a write; outside a transaction the write is its own durable commit. */
  run(db: Handle, sql: string, parameters: readonly unknown[]): number | Promise<number> {
    if (!this.now(db)) {
      return db
        .executeQuery(CompiledQuery.raw(sql, [...parameters]))
        .then((result) => Number(result.numAffectedRows ?? 0n));
    }
    const changes = this.statement(sql).run(...parameters).changes;
    if (db.isTransaction) this.sync.transactionWrote = true;
    else this.sync.committedOne(true);
    return changes;
  }
}

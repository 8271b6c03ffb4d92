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

/** Statements that run at once, inside a transaction the caller holds (RawStatements.transactNow). */
export interface HeldStatements {
  all<Row>(sql: string, parameters: readonly unknown[]): Row[];
  /** A read's rows as arrays of their column values, in the SELECT's order (RawStatements.values). */
  values<Values extends readonly unknown[]>(sql: string, parameters: readonly unknown[]): Values[];
  run(sql: string, parameters: readonly unknown[]): number;
}

export class RawStatements {
  private readonly statements = new Map<string, Database.Statement>();
  /** The same SQL prepared in raw mode: rows as arrays of column values (`values`). */
  private readonly rawStatements = new Map<string, Database.Statement>();

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

  private statement(sql: string, raw = false): Database.Statement {
    const cache = raw ? this.rawStatements : this.statements;
    let statement = cache.get(sql);
    if (statement === undefined) {
      statement = this.sqlite.prepare(sql);
      if (raw) statement.raw(true);
      cache.set(sql, statement);
    }
    this.counter?.count(sql, statement.reader);
    return statement;
  }

  private now(db: Handle): boolean {
    return db.isTransaction || !this.sqlite.inTransaction;
  }

  /** Whether a transaction of our own could begin now: none is open on the connection. */
  idle(): boolean {
    return !this.sqlite.inTransaction;
  }

  /**
   * Runs `fn` as one transaction, synchronously, on the idle connection: BEGIN … COMMIT with
   * prepared statements and no await between them, so nothing else can run inside it (Kysely's
   * lock need not be taken, since no other transaction is open and none can start before this
   * returns). A durable transaction that wrote counts as a commit for `durable()`; a relaxed one
   * does not. `fn` throwing rolls the transaction back.
   */
  transactNow<T>(durable: boolean, fn: (held: HeldStatements) => T): T {
    if (this.sqlite.inTransaction) throw new Error("a transaction is already open on this connection");
    let wrote = false;
    const held: HeldStatements = {
      all: <Row>(sql: string, parameters: readonly unknown[]) => {
        const statement = this.statement(sql);
        if (!statement.readonly) wrote = true; // … RETURNING
        return statement.all(...parameters) as Row[];
      },
      values: <Values extends readonly unknown[]>(sql: string, parameters: readonly unknown[]) =>
        this.valuesNow<Values>(sql, parameters),
      run: (sql, parameters) => {
        wrote = true;
        return this.statement(sql).run(...parameters).changes;
      },
    };
    this.statement("BEGIN").run();
    let value: T;
    try {
      value = fn(held);
      this.statement("COMMIT").run();
    } catch (error) {
      this.sync.rollbacks++;
      if (this.sqlite.inTransaction) this.statement("ROLLBACK").run();
      throw error;
    }
    if (wrote && durable) this.sync.committedOne(true);
    return value;
  }

  /** The same statements inside a Kysely transaction the caller holds (where `transactNow` must wait). */
  within(trx: Handle): HeldStatements {
    if (!trx.isTransaction) throw new Error("within() needs a transaction");
    return {
      all: <Row>(sql: string, parameters: readonly unknown[]) => this.all<Row>(trx, sql, parameters) as Row[],
      values: <Values extends readonly unknown[]>(sql: string, parameters: readonly unknown[]) =>
        this.valuesNow<Values>(sql, parameters),
      run: (sql, parameters) => this.run(trx, sql, parameters) as number,
    };
  }

  /** Rows of a read, or of a write's RETURNING clause. */
  all<Row>(db: Handle, sql: string, parameters: readonly unknown[]): Row[] | Promise<Row[]> {
    if (this.now(db)) {
      const statement = this.statement(sql);
      const rows = statement.all(...parameters) as Row[];
      if (!statement.readonly) this.wrote(db);
      return rows;
    }
    return db.executeQuery<Row>(CompiledQuery.raw(sql, [...parameters])).then((result) => [...result.rows]);
  }

  /**
   * A read's rows as arrays of their column values, in the SELECT's order. better-sqlite3 builds a
   * row object in native code at about 1 µs a row of six columns, and an array at half that: for a
   * read of many rows (a read_inbox page), the caller's own object literals cost less. So does a
   * hot path's single row: each named column costs V8's generic property store (~1,500
   * instructions under callgrind), each array element a small fraction of that.
   */
  values<Values extends readonly unknown[]>(
    db: Handle,
    sql: string,
    parameters: readonly unknown[],
  ): Values[] | Promise<Values[]> {
    const read = () => this.valuesNow<Values>(sql, parameters);
    if (this.now(db)) return read();
    // Kysely's rows are objects, whose integer-like keys would come first: the statement runs here
    // once Kysely hands over the connection, that is once the open transaction has ended.
    return db.getExecutor().provideConnection(() => Promise.resolve().then(read));
  }

  private valuesNow<Values extends readonly unknown[]>(sql: string, parameters: readonly unknown[]): Values[] {
    const statement = this.statement(sql, true);
    if (!statement.readonly) throw new Error("values() is for reads");
    return statement.all(...parameters) as Values[];
  }

  /** The changed row count of a write; outside a transaction the write is its own durable commit. */
  run(db: Handle, sql: string, parameters: readonly unknown[]): number | Promise<number> {
    if (!this.now(db)) {
      return db
        .executeQuery(CompiledQuery.raw(sql, [...parameters]))
        .then((result) => Number(result.numAffectedRows ?? 0n));
    }
    const changes = this.statement(sql).run(...parameters).changes;
    this.wrote(db);
    return changes;
  }

  /** Counts a write made at once: toward its transaction's commit, or as its own durable commit. */
  private wrote(db: Handle): void {
    if (db.isTransaction) this.sync.transactionWrote = true;
    else this.sync.committedOne(true);
  }
}

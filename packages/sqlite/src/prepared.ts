/**
 * Queries built and compiled once per dialect, then run with new parameters. Kysely builds and
 * compiles every query it runs; on the hot paths (appends, record storage, the inbox) that costs
 * more than SQLite's own work. A prepared query is written with the query builder as usual; its
 * arguments are passed as markers on first use, and their positions among the compiled
 * parameters are remembered. Arguments must be plain values bound as parameters (no IN lists).
 */
import type { Compilable, CompiledQuery, Kysely, QueryResult } from "kysely";

const MARKER = "\u0000social-harness-argument-";

interface Compiled<Row> {
  readonly query: CompiledQuery<Row>;
  /** For each compiled parameter, the argument it takes, or -1 for a constant. */
  readonly slots: readonly number[];
}

export function prepared<DB, Args extends readonly unknown[], Row>(
  build: (db: Kysely<DB>, ...args: Args) => Compilable<Row>,
): (db: Kysely<DB>, ...args: Args) => Promise<QueryResult<Row>> {
  // One compilation per dialect adapter (SQLite and PostgreSQL quote and number differently).
  // getExecutor() is marked internal in Kysely; the version is pinned exactly in package.json.
  const compiled = new Map<unknown, Compiled<Row>>();
  return (db, ...args) => {
    const adapter = db.getExecutor().adapter.constructor;
    let entry = compiled.get(adapter);
    if (entry === undefined) {
      const markers = args.map((_, i) => `${MARKER}${i}`) as unknown as Args;
      const query = build(db, ...markers).compile();
      const slots = query.parameters.map((p) =>
        typeof p === "string" && p.startsWith(MARKER) ? Number(p.slice(MARKER.length)) : -1,
      );
      if (new Set(slots.filter((s) => s >= 0)).size !== args.length) {
        throw new Error(`a prepared query must bind each of its ${args.length} arguments as a parameter`);
      }
      entry = { query, slots };
      compiled.set(adapter, entry);
    }
    const { query, slots } = entry;
    const parameters = query.parameters.map((p, i) => (slots[i]! >= 0 ? args[slots[i]!] : p));
    return db.executeQuery({ ...query, parameters });
  };
}

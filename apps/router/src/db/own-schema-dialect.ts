/**
 * PostgreSQL for a router that keeps its tables in one schema of a shared database. Kysely's
 * Postgres introspector lists the tables of every schema the role may use, checking each schema
 * by name while the query runs; a schema another process drops at that moment (another router's
 * tests, an operator's cleanup) fails the query with "schema … does not exist", and with it the
 * router's migration at start. The migrator only asks whether its own tables exist, in the
 * router's schema, so this introspector answers from that schema alone.
 */
import {
  PostgresDialect,
  sql,
  type DatabaseIntrospector,
  type Kysely,
  type SchemaMetadata,
  type TableMetadata,
} from "kysely";

class OwnSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`SELECT current_schema() AS name`.execute(this.db);
    return rows;
  }

  /** The tables and views of the connection's current schema, by name (no column metadata). */
  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; schema: string; kind: string }>`
      SELECT c.relname AS name, n.nspname AS schema, c.relkind AS kind
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'v', 'p', 'f')
      ORDER BY c.relname`.execute(this.db);
    return rows.map((row) => ({
      name: row.name,
      schema: row.schema,
      isView: row.kind === "v",
      isForeign: row.kind === "f",
      columns: [],
    }));
  }
}

export class OwnSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new OwnSchemaIntrospector(db);
  }
}

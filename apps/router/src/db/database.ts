/**
 * The router's storage: one Kysely schema served by SQLite (embedded, the default) or PostgreSQL
 * (several routers sharing one database). SQLite runs in WAL mode with synchronous=FULL so a
 * certified record is on disk before its certificate leaves the router.
 */
import Database from "better-sqlite3";
import { Kysely, type Generated } from "kysely";
import { Migrator } from "kysely/migration";
import pg from "pg";
import { routerMigrations } from "./migrations/index.js";
import { TransactionalSqliteDialect, withStatementCache } from "@social-harness/sqlite";
import { OwnSchemaPostgresDialect } from "./own-schema-dialect.js";

export interface AgentsTable {
  name: string;
  public_key: Uint8Array;
  registered_at: number;
}

/** A conversation exists; its head is its last record (records' primary key), not a column here. */
export interface ConversationsTable {
  conv: string;
  created_at: number;
}

export interface MembersTable {
  conv: string;
  member: string;
}

export interface RecordsTable {
  conv: string;
  seq: number;
  hash: string;
  author: string;
  post_id: string;
  bytes: Uint8Array;
  /** CBOR list of {signer, signature}: the author's, or every member's for a genesis. */
  signatures: Uint8Array;
  certificate: Uint8Array;
  committed_at: number;
}

export interface RouterKeysTable {
  id: Generated<number>;
  seed: Uint8Array;
  created_at: number;
}

export interface RouterDatabase {
  agents: AgentsTable;
  conversations: ConversationsTable;
  members: MembersTable;
  records: RecordsTable;
  router_keys: RouterKeysTable;
}

export type Dialect = "sqlite" | "postgres";

export interface RouterStore {
  readonly db: Kysely<RouterDatabase>;
  readonly dialect: Dialect;
  /** For PostgreSQL: a connection config for a LISTEN client and the channel prefix. */
  readonly postgres?: { readonly config: pg.ClientConfig; readonly channel: string };
  /** For SQLite: the database file, which the append writer opens on its own connection. */
  readonly sqliteFile?: string;
  close(): Promise<void>;
}

const BIGINT_OID = 20;

/** Timestamps are bigint columns; they fit a JS number, and the rest of the code expects one. */
function parseBigintsAsNumbers(oid: number, format?: "text" | "binary"): (value: string) => unknown {
  if (oid === BIGINT_OID) return (value: string) => Number(value);
  return pg.types.getTypeParser(oid, format ?? "text") as (value: string) => unknown;
}

/** Parses `postgres://...?schema=name`: the schema is created if missing and used as search_path. */
function postgresConfig(url: string): { config: pg.ClientConfig; schema: string } {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get("schema") ?? "public";
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name ${JSON.stringify(schema)}`);
  parsed.searchParams.delete("schema");
  return {
    schema,
    config: {
      connectionString: parsed.toString(),
      options: `-c search_path=${schema}`,
      types: { getTypeParser: parseBigintsAsNumbers as typeof pg.types.getTypeParser },
    },
  };
}

/**
 * Migrates to the latest schema. On PostgreSQL the migration tables live in the router's own
 * schema, named explicitly: Kysely looks them up across every schema of the database otherwise,
 * and another schema's tables would make it skip creating ours.
 */
async function migrate(db: Kysely<RouterDatabase>, dialect: Dialect, schema?: string): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(routerMigrations(dialect)) },
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw new Error("router database migration failed", { cause: error });
}

/** Opens (and migrates) the SQLite file or the PostgreSQL database named by `database`. */
export async function openRouterStore(options: { database?: string; sqliteFile: string }): Promise<RouterStore> {
  if (options.database?.startsWith("postgres://") || options.database?.startsWith("postgresql://")) {
    const { config, schema } = postgresConfig(options.database);
    const bootstrap = new pg.Client({ ...config, options: undefined });
    await bootstrap.connect();
    try {
      await bootstrap.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } finally {
      await bootstrap.end();
    }
    const pool = new pg.Pool({ ...config, max: 10 });
    const db = new Kysely<RouterDatabase>({ dialect: new OwnSchemaPostgresDialect({ pool }) });
    await migrate(db, "postgres", schema);
    return {
      db,
      dialect: "postgres",
      postgres: { config, channel: `social_harness_${schema}` },
      close: () => db.destroy(),
    };
  }
  if (options.database !== undefined) throw new Error(`unsupported database URL ${options.database}`);
  const db = openSqlite(options.sqliteFile);
  await migrate(db, "sqlite");
  return { db, dialect: "sqlite", sqliteFile: options.sqliteFile, close: () => db.destroy() };
}

/** One connection to the router's SQLite file: WAL, and every commit fsync'd (synchronous=FULL). */
export function openSqliteConnection(file: string): Database.Database {
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = FULL");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("foreign_keys = ON");
  return sqlite;
}

/** The same connection under Kysely. */
export function openSqlite(file: string): Kysely<RouterDatabase> {
  const sqlite = openSqliteConnection(file);
  return new Kysely<RouterDatabase>({
    dialect: new TransactionalSqliteDialect({ database: withStatementCache(sqlite) }),
  });
}

/**
 * SQLite under Kysely, with its DDL known to be transactional. Kysely's SQLite adapter says it is
 * not, so its migrator runs each statement of a migration on its own: a crash between a table's copy
 * and its rename, or inside a first start's CREATE TABLEs, leaves a database the next start cannot
 * migrate. SQLite's DDL is transactional; with this dialect the migrator runs the pending migrations
 * and their records in one transaction: all of them happen, or none. (The migrator is the only
 * reader of `supportsTransactionalDdl`.)
 */
import { SqliteAdapter, SqliteDialect, type DialectAdapter } from "kysely";

class TransactionalDdlAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

export class TransactionalSqliteDialect extends SqliteDialect {
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlAdapter();
  }
}

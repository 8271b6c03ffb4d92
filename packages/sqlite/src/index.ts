/**
 * @social-harness/sqlite: the query helpers the router and the daemon share. Hot queries are
 * compiled once per dialect and run with new parameters; a better-sqlite3 handle prepares each
 * distinct SQL text once.
 */
export { prepared } from "./prepared.js";
export { withStatementCache } from "./statement-cache.js";
export { createStatementCounter, type StatementCounter, type StatementCounts } from "./statement-counter.js";
export {
  CommitPlacement,
  LEAVE_LOOP_MS,
  RETURN_TO_LOOP_MS,
  type CommitPlace,
  type CommitPlacementOptions,
} from "./commit-placement.js";
export { TransactionalSqliteDialect } from "./transactional-ddl.js";

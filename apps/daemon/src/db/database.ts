/**
 * The daemon's SQLite database: WAL at synchronous=NORMAL with a group fsync off the event loop
 * (db/wal-sync.ts), so a commit the daemon promises durable (a bound intent, an inbox item)
 * survives power loss once `durable()` resolves. Kysely serves the control plane; hot paths may
 * prepare statements on the same connection.
 */
import Database from "better-sqlite3";
import { Kysely, type Transaction } from "kysely";
import { Migrator } from "kysely/migration";
import {
  TransactionalSqliteDialect,
  withStatementCache,
  type CommitPlacementOptions,
  type StatementCounter,
} from "@social-harness/sqlite";
import { daemonMigrations } from "./migrations/index.js";
import { RawStatements, type HeldStatements } from "./raw-statements.js";
import { TurnWrites } from "./turn-writes.js";
import { countingCommits, WalSync } from "./wal-sync.js";
import type { PinnedKeysTable, RouterIdentityTable } from "../identity/identity.table.js";
import type { ConversationsTable, RecordsTable } from "../history/history.table.js";
import type { IntentsTable } from "../posts/intents.table.js";
import type { InboxTable } from "../inbox/inbox.table.js";
import type { HoldsTable } from "../holds/holds.table.js";
import type { FirewallPoliciesTable, FirewallQueueTable, FirewallChecksTable } from "../firewall/firewall.table.js";
import type { TrustedAgentsTable } from "../trust/trust.table.js";
import type { CollectiveRequestsTable, CollectiveOperationsTable } from "../collectives/collectives.table.js";
import type {
  WebhookSubscriptionsTable,
  WebhookOccurrencesTable,
  WebhookAttemptMinutesTable,
} from "../webhooks/webhooks.table.js";

export interface DaemonDatabase {
  collective_requests: CollectiveRequestsTable;
  collective_operations: CollectiveOperationsTable;
  pinned_keys: PinnedKeysTable;
  router_identity: RouterIdentityTable;
  conversations: ConversationsTable;
  records: RecordsTable;
  intents: IntentsTable;
  inbox: InboxTable;
  holds: HoldsTable;
  firewall_policies: FirewallPoliciesTable;
  firewall_queue: FirewallQueueTable;
  firewall_checks: FirewallChecksTable;
  trusted_agents: TrustedAgentsTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_occurrences: WebhookOccurrencesTable;
  webhook_attempt_minutes: WebhookAttemptMinutesTable;
}

export type Db = Kysely<DaemonDatabase>;
export type Trx = Transaction<DaemonDatabase>;
export type DbOrTrx = Db | Trx;

export interface DaemonStore {
  readonly db: Db;
  readonly sqlite: Database.Database;
  /**
   * Resolves once every durable commit made before the call is on disk: awaited before a
   * proposal, an acknowledgment to the router or an answer to a host relies on one.
   */
  durable(): Promise<void>;
  /** fdatasyncs of the WAL so far (the operators' metric social_harness_daemon_wal_fsyncs_total). */
  fsyncs(): number;
  close(): Promise<void>;
}

const syncs = new WeakMap<Db, WalSync>();

export interface DaemonStoreOptions {
  readonly counter?: StatementCounter;
  /** Where the WAL's group fsyncs run (db/wal-sync.ts), and who is told when they move. */
  readonly sync?: CommitPlacementOptions;
}

/** Opens and migrates the daemon database; startup fails on a migration error. */
export async function openDaemonStore(file: string, options: DaemonStoreOptions = {}): Promise<DaemonStore> {
  const { counter } = options;
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  // Commits write the WAL without an fsync; WalSync fdatasyncs it, once per group of commits.
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 5000");
  const sync = new WalSync(`${file}-wal`, options.sync);
  const db = new Kysely<DaemonDatabase>({
    dialect: new TransactionalSqliteDialect({
      database: countingCommits(withStatementCache(sqlite, counter), sqlite, sync),
    }),
  });
  syncs.set(db, sync);
  new RawStatements(sqlite, sync, counter).attach(db);
  const migrator = new Migrator({ db, provider: { getMigrations: () => Promise.resolve(daemonMigrations) } });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) {
    await db.destroy();
    throw new Error("daemon database migration failed", { cause: error });
  }
  await sync.durable();
  return {
    db,
    sqlite,
    durable: () => sync.durable(),
    fsyncs: () => sync.fsyncs,
    async close() {
      await sync.close();
      await db.destroy();
    },
  };
}

/**
 * Transactions rolled back on `db` so far (explicitly or by an error inside one). A cache of what
 * the database holds, filled inside transactions, is stale once this moves.
 */
export function rollbacksOf(db: Db): number {
  return syncs.get(db)?.rollbacks ?? 0;
}

/**
 * Starts the fsync of the durable commits made so far on `db` without waiting for it (a bound
 * intent, before its proposal is signed); `durable()` still decides when the promise holds.
 */
export function startDurable(db: Db): void {
  syncs.get(db)?.start();
}

/**
 * Syncs the durable commits made so far on `db` now, on the loop, when fsyncs run there (else it
 * only starts the sync): for a caller that will await `durable()` at once and has nothing for the
 * rest of its turn to share the fsync with (the webhook engine's one delivery in flight).
 */
export function syncDurableNow(db: Db): void {
  syncs.get(db)?.syncNow();
}

/**
 * Runs a transaction whose commit is durable against a crash of the process but not against power
 * loss (no `durable()` waits for it), for writes that recovery can rebuild from elsewhere: our own
 * certified records, which a restart fetches again from the router through the bound intent. The
 * connection is held for the whole call, so no other commit is counted as relaxed.
 */
export async function relaxedTransaction<T>(db: Db, fn: (trx: Trx) => Promise<T>): Promise<T> {
  const sync = syncs.get(db);
  return db
    .connection()
    .execute((connection) =>
      sync === undefined
        ? connection.transaction().execute(fn)
        : sync.relaxed(() => connection.transaction().execute(fn)),
    );
}

/**
 * A relaxedTransaction whose body may learn that its commit must survive power loss after all, and
 * says so with `mustSurvive()` before it returns: a batch of pushed records binds delivery tokens
 * or holds only if its classification, inside the transaction, admits or holds something.
 */
export async function transactionDurableIf<T>(
  db: Db,
  fn: (trx: Trx, mustSurvive: () => void) => Promise<T>,
): Promise<T> {
  const sync = syncs.get(db);
  return relaxedTransaction(db, (trx) => fn(trx, () => sync?.mustSurvive()));
}

/**
 * A transaction of prepared statements only (a hot path's): at once, without Kysely, when no
 * transaction is open on the connection (RawStatements.transactNow), else in Kysely's turn with the
 * same statements. "relaxed" is relaxedTransaction's promise: safe from a crash, not from power loss.
 */
export async function heldTransaction<T>(
  db: Db,
  commit: "durable" | "relaxed",
  fn: (held: HeldStatements) => T,
): Promise<T> {
  const raw = RawStatements.of(db);
  if (raw.idle()) return raw.transactNow(commit === "durable", fn);
  const body = (trx: Trx) => Promise.resolve(fn(raw.within(trx)));
  return commit === "durable" ? db.transaction().execute(body) : relaxedTransaction(db, body);
}

const turns = new WeakMap<Db, TurnWrites>();

/**
 * heldTransaction's write, queued for the end of this turn and committed with the turn's other
 * such writes in one transaction (db/turn-writes.ts): the hot path's binds and our own certified
 * records, so that the sends of one turn share a commit and its fsync.
 */
export function turnTransaction<T>(db: Db, commit: "durable" | "relaxed", fn: (held: HeldStatements) => T): Promise<T> {
  let turn = turns.get(db);
  if (turn === undefined) {
    const sync = syncs.get(db);
    turn = new TurnWrites(
      (durable, body) => heldTransaction(db, durable ? "durable" : "relaxed", body),
      () => sync?.syncNow(),
    );
    turns.set(db, turn);
  }
  return turn.write(commit, fn);
}

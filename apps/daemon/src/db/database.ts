/**
 * The daemon's SQLite database: WAL at synchronous=NORMAL with a group fsync off the event loop
 * (db/wal-sync.ts), so a commit the daemon promises durable (a bound intent, an inbox item)
 * survives power loss once `durable()` resolves. Kysely serves the control plane; hot paths may
 * prepare statements on the same connection.
 */
import Database from "better-sqlite3";
import { Kysely, SqliteDialect, type Generated, type Transaction } from "kysely";
import { Migrator } from "kysely/migration";
import { withStatementCache, type StatementCounter } from "@social-harness/sqlite";
import { daemonMigrations } from "./migrations/index.js";
import { RawStatements } from "./raw-statements.js";
import { countingCommits, WalSync } from "./wal-sync.js";

export interface PinnedKeysTable {
  name: string;
  public_key: Uint8Array;
  pinned_at: number;
}

export interface RouterIdentityTable {
  id: number;
  public_key: Uint8Array;
  pinned_at: number;
}

export interface ConversationsTable {
  conv: string;
  /** JSON list of the certified members, sorted. */
  members: string;
  /** Every record up to this seq is stored. */
  contiguous_seq: number;
  created_at: number;
}

export interface RecordsTable {
  id: Generated<number>;
  conv: string;
  seq: number;
  hash: string;
  kind: string;
  author: string;
  post_id: string;
  at: number;
  bytes: Uint8Array;
  signatures: Uint8Array;
  certificate: Uint8Array;
  /** What classification did: "own", "delivered", "held", "consumed". */
  disposition: string;
  stored_at: number;
}

export interface IntentsTable {
  post_id: string;
  conv: string;
  content: Uint8Array;
  /** "bound" until certified ("certified") or refused by the router ("refused"). */
  state: string;
  record_hash: string | null;
  detail: string | null;
  created_at: number;
  settled_at: number | null;
}

export interface InboxTable {
  id: Generated<number>;
  token: string;
  kind: string;
  item: string;
  guidance: string | null;
  size: number;
  conv: string | null;
  record_hash: string | null;
  /** "pending", then "acknowledged" or "retired" (tombstones keep token and payload). */
  state: string;
  created_at: number;
  settled_at: number | null;
  settled_by: string | null;
}

export interface HoldsTable {
  id: Generated<number>;
  record_hash: string;
  sender: string;
  conv: string;
  item: string;
  reason: string;
  /** "trust" or "firewall". */
  source: string;
  check_id: string | null;
  /** The check's CheckedGuidance (JSON), for the owner. */
  guidance: string | null;
  created_at: number;
  released_at: number | null;
  released_token: string | null;
  discarded_at: number | null;
}

export interface FirewallPoliciesTable {
  revision: number;
  policy: string;
  author: string;
  created_at: number;
}

export interface FirewallQueueTable {
  id: Generated<number>;
  conv: string;
  record_hash: string;
  sender: string;
  kind: string;
  payload: string;
  created_at: number;
}

export interface FirewallChecksTable {
  id: Generated<number>;
  check_id: string;
  direction: string;
  conv: string;
  record_hash: string | null;
  post_id: string | null;
  subjects: string;
  policy_revision: number;
  mode: string;
  decision: string;
  outcome: string;
  middlewares: string;
  guidance: string | null;
  stale: number;
  latency_us: number;
  created_at: number;
}

export interface TrustedAgentsTable {
  name: string;
  added_at: number;
}

export interface CollectiveRequestsTable {
  id: string;
  record_hash: string;
  conv: string;
  op: string;
  requester: string;
  deadline_at: number;
  received_at: number;
  /** The token of the result item, once the all_gather close was applied here. */
  result_token: string | null;
}

export interface CollectiveOperationsTable {
  id: string;
  op: string;
  address: string;
  question: string;
  deadline_at: number;
  /** "open", then "done" or "failed". */
  state: string;
  created_at: number;
  settled_at: number | null;
}

export interface WebhookSubscriptionsTable {
  /** "sub_" + hex SHA-256 of the canonical key (principal, url, event name, arguments). */
  id: string;
  principal: string;
  /** The callback URL exactly as subscribed. */
  url: string;
  event_name: string;
  /** Canonical JSON of the subscription arguments. */
  arguments: string;
  /** The Standard Webhooks secret sealed with AES-256-GCM ("enc:v1:…"); never the plaintext. */
  secret: string;
  secret_fingerprint: string;
  /** "active", "suspended" or "revoked"; expiry is derived from lease_expires_at. */
  state: string;
  /** 410 or 413 once the receiver rejected terminally; only revocation clears it. */
  terminal_status: number | null;
  lease_expires_at: number;
  attempts: number;
  failing_since: number | null;
  /** A failure category only, never a status line or body. */
  last_error: string | null;
  next_attempt_at: number | null;
  last_delivery_at: number | null;
  delivered: number;
  created_at: number;
  updated_at: number;
  revoked_at: number | null;
  revoked_by: string | null;
}

export interface WebhookOccurrencesTable {
  subscription_id: string;
  token: string;
  event_id: string;
  /** The exact body bytes every attempt sends. */
  body: Uint8Array;
  created_at: number;
}

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
  close(): Promise<void>;
}

const syncs = new WeakMap<Db, WalSync>();

/** Opens and migrates the daemon database; startup fails on a migration error. */
export async function openDaemonStore(file: string, counter?: StatementCounter): Promise<DaemonStore> {
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  // Commits write the WAL without an fsync; WalSync fsyncs it, grouped, on the thread pool.
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 5000");
  const sync = new WalSync(`${file}-wal`);
  const db = new Kysely<DaemonDatabase>({
    dialect: new SqliteDialect({ database: countingCommits(withStatementCache(sqlite, counter), sqlite, sync) }),
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
    async close() {
      await sync.close();
      await db.destroy();
    },
  };
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

/**
 * Registration tokens against a router's database, for `social-harness router token create | list
 * | revoke`: each opens (and migrates) the same SQLite file or PostgreSQL schema the router uses, so
 * it works while the router runs, and on any router sharing that database.
 *
 * A token's id is the first 12 characters of its digest (base64url SHA-256, what the router
 * stores): it names the token in lists and revocations without being able to register anything.
 */
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { isAgentName, REGISTRATION_TOKEN_PATTERN } from "@social-harness/protocol";
import { openRouterStore, type RouterStore } from "./db/database.js";
import { issueRegistrationToken, registrationTokenDigest } from "./registry/registration.service.js";
import {
  findRegistrationToken,
  findRegistrationTokensByPrefix,
  listRegistrationTokens as listTokenRows,
  revokeRegistrationTokenRow,
  type RegistrationTokenRow,
} from "./registry/tokens.store.js";
import { findWithdrawal } from "./registry/withdrawals.store.js";

/** Where a router keeps its tokens. */
export interface TokenStorage {
  readonly dataDir: string;
  /** A postgres:// URL; the SQLite file in the data directory when absent. */
  readonly database?: string;
}

export interface TokenOptions extends TokenStorage {
  /** The only name the token registers; any free name when absent. */
  readonly name?: string;
  /** How long the token stays usable. */
  readonly ttlMs: number;
  readonly now?: number;
}

export interface IssuedToken {
  readonly token: string;
  readonly id: string;
  readonly name: string | undefined;
  readonly expiresAt: number;
}

const TOKEN_ID_LENGTH = 12;
const TOKEN_ID_PATTERN = new RegExp(`^[A-Za-z0-9_-]{${TOKEN_ID_LENGTH}}$`);

const idOf = (digest: string) => digest.slice(0, TOKEN_ID_LENGTH);

/**
 * Opens the router's store for one command. Only `create` makes a data directory and database that
 * do not exist yet (tokens may be issued before the router's first start); a list or a revocation
 * against a SQLite file that is not there names the mistake instead of creating an empty router.
 */
export async function withStore<T>(
  storage: TokenStorage,
  run: (store: RouterStore) => Promise<T>,
  create = false,
): Promise<T> {
  const sqliteFile = path.join(storage.dataDir, "router.db");
  if (create) mkdirSync(storage.dataDir, { recursive: true, mode: 0o700 });
  else if (storage.database === undefined && !existsSync(sqliteFile))
    throw new Error(`no router database at ${sqliteFile}: --data names the router's data directory`);
  const store = await openRouterStore({ database: storage.database, sqliteFile });
  try {
    return await run(store);
  } finally {
    await store.close();
  }
}

export async function createRegistrationToken(options: TokenOptions): Promise<IssuedToken> {
  if (options.name !== undefined && !isAgentName(options.name)) {
    throw new Error(`${JSON.stringify(options.name)} is not an agent name (3-32 of a-z 0-9 _ -)`);
  }
  if (!Number.isSafeInteger(options.ttlMs) || options.ttlMs <= 0)
    throw new Error("the token needs a positive lifetime");
  return withStore(
    options,
    async (store) => {
      const now = options.now ?? Date.now();
      const expiresAt = now + options.ttlMs;
      const withdrawn = options.name === undefined ? undefined : await findWithdrawal(store.db, options.name);
      if (withdrawn !== undefined) {
        throw new Error(
          `${options.name} was withdrawn at ${new Date(withdrawn.withdrawnAt).toISOString()}; no key registers it again`,
        );
      }
      const token = await issueRegistrationToken(store.db, { name: options.name, expiresAt, now });
      return { token, id: idOf(registrationTokenDigest(token)), name: options.name, expiresAt };
    },
    true,
  );
}

/** What a token can still do: register a name, or nothing and why. */
export type TokenState =
  | { readonly kind: "usable" }
  | { readonly kind: "used"; readonly at: number; readonly by: string }
  | { readonly kind: "revoked"; readonly at: number }
  | { readonly kind: "expired"; readonly at: number };

export interface IssuedTokenInfo {
  readonly id: string;
  /** The only name it registers, or undefined for any free name. */
  readonly name: string | undefined;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly state: TokenState;
}

/** The first of: used, revoked, expired (the order registration checks them in); else usable. */
function infoOf(row: RegistrationTokenRow, now: number): IssuedTokenInfo {
  const state: TokenState =
    row.usedAt !== undefined
      ? { kind: "used", at: row.usedAt, by: row.usedBy ?? "" }
      : row.revokedAt !== undefined
        ? { kind: "revoked", at: row.revokedAt }
        : row.expiresAt <= now
          ? { kind: "expired", at: row.expiresAt }
          : { kind: "usable" };
  return { id: idOf(row.digest), name: row.name, createdAt: row.createdAt, expiresAt: row.expiresAt, state };
}

/** Every token the router issued, oldest first, with what each can still do. */
export async function listRegistrationTokens(
  storage: TokenStorage & { readonly now?: number },
): Promise<IssuedTokenInfo[]> {
  return withStore(storage, async (store) => {
    const now = storage.now ?? Date.now();
    return (await listTokenRows(store.db)).map((row) => infoOf(row, now));
  });
}

export type Revocation =
  /** Revoked now; `token` is what it was before. */
  | { readonly kind: "revoked"; readonly token: IssuedTokenInfo }
  /** Nothing to do: it was revoked before. */
  | { readonly kind: "unchanged"; readonly token: IssuedTokenInfo }
  /** It registered a name already; revoking it would not withdraw the name. */
  | { readonly kind: "used"; readonly token: IssuedTokenInfo }
  | { readonly kind: "unknown" };

/**
 * Revokes a token named by its id (from `list` or `create`) or by the token itself. A token in use
 * by a registration at that moment is either revoked first (the registration is refused) or used
 * first (then this answers `used`): both update the row only while it is unused and unrevoked.
 */
export async function revokeRegistrationToken(
  storage: TokenStorage & { readonly now?: number },
  idOrToken: string,
): Promise<Revocation> {
  const byToken = REGISTRATION_TOKEN_PATTERN.test(idOrToken);
  if (!byToken && !TOKEN_ID_PATTERN.test(idOrToken)) {
    throw new Error(
      `${JSON.stringify(idOrToken)} is neither a token id (${TOKEN_ID_LENGTH} characters, as \`router token list\` shows) nor a registration token`,
    );
  }
  return withStore(storage, async (store) => {
    const now = storage.now ?? Date.now();
    // A token's whole digest is the longest prefix of itself: one look-up serves both forms.
    const rows = await findRegistrationTokensByPrefix(
      store.db,
      byToken ? registrationTokenDigest(idOrToken) : idOrToken,
    );
    if (rows.length === 0) return { kind: "unknown" };
    // Twelve base64url characters are 72 bits of SHA-256: two tokens of one router never share them.
    if (rows.length > 1) throw new Error(`${rows.length} tokens have the id ${idOrToken}; revoke by the token itself`);
    const row = rows[0]!;
    if (await revokeRegistrationTokenRow(store.db, row.digest, now))
      return { kind: "revoked", token: infoOf(row, now) };
    const current = (await findRegistrationToken(store.db, row.digest)) ?? row;
    const token = infoOf(current, now);
    return token.state.kind === "used" ? { kind: "used", token } : { kind: "unchanged", token };
  });
}

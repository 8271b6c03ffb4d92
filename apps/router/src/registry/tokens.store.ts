/**
 * SQL for registration tokens. The table is declared here rather than in the router's database
 * type because only registration reads it; only a SHA-256 digest of each token is stored.
 */
import { sql, type Kysely } from "kysely";
import type { RouterDatabase } from "../db/database.js";

export interface RegistrationTokensTable {
  digest: string;
  /** The only name the token may register, or null for any free name. */
  name: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  used_by: string | null;
  /** When the operator revoked it (`router token revoke`); a revoked token registers nothing. */
  revoked_at: number | null;
}

export interface RegistrationTokenRow {
  readonly digest: string;
  readonly name: string | undefined;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly usedAt: number | undefined;
  readonly usedBy: string | undefined;
  readonly revokedAt: number | undefined;
}

const withTokens = (db: Kysely<RouterDatabase>) => db.withTables<{ registration_tokens: RegistrationTokensTable }>();

export async function insertRegistrationToken(
  db: Kysely<RouterDatabase>,
  token: { digest: string; name: string | undefined; createdAt: number; expiresAt: number },
): Promise<void> {
  await withTokens(db)
    .insertInto("registration_tokens")
    .values({
      digest: token.digest,
      name: token.name ?? null,
      created_at: token.createdAt,
      expires_at: token.expiresAt,
      used_at: null,
      used_by: null,
      revoked_at: null,
    })
    .execute();
}

export async function findRegistrationToken(
  db: Kysely<RouterDatabase>,
  digest: string,
): Promise<RegistrationTokenRow | undefined> {
  const row = await withTokens(db)
    .selectFrom("registration_tokens")
    .selectAll()
    .where("digest", "=", digest)
    .executeTakeFirst();
  return row === undefined ? undefined : tokenOf(row);
}

function tokenOf(row: RegistrationTokensTable): RegistrationTokenRow {
  return {
    digest: row.digest,
    name: row.name ?? undefined,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    usedAt: row.used_at === null ? undefined : Number(row.used_at),
    usedBy: row.used_by ?? undefined,
    revokedAt: row.revoked_at === null ? undefined : Number(row.revoked_at),
  };
}

/** Every token issued, oldest first. */
export async function listRegistrationTokens(db: Kysely<RouterDatabase>): Promise<RegistrationTokenRow[]> {
  const rows = await withTokens(db)
    .selectFrom("registration_tokens")
    .selectAll()
    .orderBy("created_at")
    .orderBy("digest")
    .execute();
  return rows.map(tokenOf);
}

/** The tokens whose digest begins with `prefix` (a token's id is the start of its digest). */
export async function findRegistrationTokensByPrefix(
  db: Kysely<RouterDatabase>,
  prefix: string,
): Promise<RegistrationTokenRow[]> {
  // Not LIKE: base64url's "_" is one of LIKE's wildcards.
  const rows = await withTokens(db)
    .selectFrom("registration_tokens")
    .selectAll()
    .where(sql<string>`substr(digest, 1, ${prefix.length})`, "=", prefix)
    .execute();
  return rows.map(tokenOf);
}

/** Revokes an unused, unrevoked token; false when it was used or revoked first. */
export async function revokeRegistrationTokenRow(
  db: Kysely<RouterDatabase>,
  digest: string,
  now: number,
): Promise<boolean> {
  const result = await withTokens(db)
    .updateTable("registration_tokens")
    .set({ revoked_at: now })
    .where("digest", "=", digest)
    .where("used_at", "is", null)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Marks an unused, unrevoked token used by `name`; false when another registration used it first
 * or the operator revoked it meanwhile.
 */
export async function useRegistrationToken(
  db: Kysely<RouterDatabase>,
  digest: string,
  name: string,
  now: number,
): Promise<boolean> {
  const result = await withTokens(db)
    .updateTable("registration_tokens")
    .set({ used_at: now, used_by: name })
    .where("digest", "=", digest)
    .where("used_at", "is", null)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

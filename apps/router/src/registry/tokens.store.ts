/**
 * SQL for registration tokens. The table is declared here rather than in the router's database
 * type because only registration reads it; only a SHA-256 digest of each token is stored.
 */
import type { Kysely } from "kysely";
import type { RouterDatabase } from "../db/database.js";

export interface RegistrationTokensTable {
  digest: string;
  /** The only name the token may register, or null for any free name. */
  name: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  used_by: string | null;
}

export interface RegistrationTokenRow {
  readonly digest: string;
  readonly name: string | undefined;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly usedAt: number | undefined;
  readonly usedBy: string | undefined;
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
  if (row === undefined) return undefined;
  return {
    digest: row.digest,
    name: row.name ?? undefined,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    usedAt: row.used_at ?? undefined,
    usedBy: row.used_by ?? undefined,
  };
}

/** Marks an unused token used by `name`; false when another registration used it first. */
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
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

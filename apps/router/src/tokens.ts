/**
 * Issuing a registration token against a router's database, for `social-harness router token
 * create`: it opens (and migrates) the same SQLite file or PostgreSQL schema the router uses, so
 * it works while the router runs, and on any router sharing that database.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { isAgentName } from "@social-harness/protocol";
import { openRouterStore } from "./db/database.js";
import { issueRegistrationToken } from "./registry/registration.service.js";

export interface TokenOptions {
  readonly dataDir: string;
  /** A postgres:// URL; the SQLite file in the data directory when absent. */
  readonly database?: string;
  /** The only name the token registers; any free name when absent. */
  readonly name?: string;
  /** How long the token stays usable. */
  readonly ttlMs: number;
  readonly now?: number;
}

export interface IssuedToken {
  readonly token: string;
  readonly name: string | undefined;
  readonly expiresAt: number;
}

export async function createRegistrationToken(options: TokenOptions): Promise<IssuedToken> {
  if (options.name !== undefined && !isAgentName(options.name)) {
    throw new Error(`${JSON.stringify(options.name)} is not an agent name (3-32 of a-z 0-9 _ -)`);
  }
  if (!Number.isSafeInteger(options.ttlMs) || options.ttlMs <= 0)
    throw new Error("the token needs a positive lifetime");
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const store = await openRouterStore({
    database: options.database,
    sqliteFile: path.join(options.dataDir, "router.db"),
  });
  try {
    const now = options.now ?? Date.now();
    const expiresAt = now + options.ttlMs;
    const token = await issueRegistrationToken(store.db, { name: options.name, expiresAt, now });
    return { token, name: options.name, expiresAt };
  } finally {
    await store.close();
  }
}

/**
 * Withdrawing a registered name, for `social-harness router agent withdraw`: against the router's
 * SQLite file or PostgreSQL schema (tokens.ts `withStore`), with its routers running or not. Every
 * router sharing the database reads the withdrawal within a second (registry/withdrawal-watch.ts),
 * closes the name's link and forgets its key. The name is retired: no key registers it again, since
 * the records of its conversations are the name's, and a new key under it could read them.
 */
import { encodeBase64url, isAgentName } from "@social-harness/protocol";
import { withStore, type TokenStorage } from "./tokens.js";
import { withdrawAgent } from "./registry/withdrawals.store.js";

export interface WithdrawnName {
  readonly name: string;
  /** The key the name was withdrawn from, base64url. */
  readonly publicKey: string;
  readonly registeredAt: number;
  readonly withdrawnAt: number;
}

/** Withdraws `name` from its key for good; undefined when no key holds it. */
export async function withdrawRegisteredName(
  storage: TokenStorage,
  name: string,
  now = Date.now(),
): Promise<WithdrawnName | undefined> {
  if (!isAgentName(name)) throw new Error(`${JSON.stringify(name)} is not an agent name (3-32 of a-z 0-9 _ -)`);
  return withStore(storage, async (store) => {
    const withdrawal = await withdrawAgent(store.db, name, now);
    if (withdrawal === undefined) return undefined;
    return {
      name: withdrawal.name,
      publicKey: encodeBase64url(withdrawal.publicKey),
      registeredAt: withdrawal.registeredAt,
      withdrawnAt: withdrawal.withdrawnAt,
    };
  });
}

/**
 * Peers' public keys, pinned the first time the router names them (trust on first use, seed 002):
 * a pinned key never changes, so a router cannot later swap the key behind a name. Unknown names
 * are resolved through the router; a key that is small-order or otherwise invalid is never pinned.
 */
import { checkPublicKey, type ResolvedAgent } from "@social-harness/protocol";
import type { DbOrTrx } from "../db/database.js";

async function findPinnedKey(db: DbOrTrx, name: string): Promise<Uint8Array | undefined> {
  const row = await db.selectFrom("pinned_keys").select("public_key").where("name", "=", name).executeTakeFirst();
  return row === undefined ? undefined : new Uint8Array(row.public_key);
}

/** Pins `key` for `name` unless a key is already pinned; returns the pinned key. */
async function pinKey(db: DbOrTrx, name: string, key: Uint8Array, now: number): Promise<Uint8Array> {
  await db
    .insertInto("pinned_keys")
    .values({ name, public_key: Buffer.from(key), pinned_at: now })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
  return (await findPinnedKey(db, name))!;
}

export class PeerKeys {
  /** Keys read so far; a pinned key never changes. */
  private readonly cache = new Map<string, Uint8Array>();

  constructor(
    private readonly db: DbOrTrx,
    /** Asks the router for names this daemon has not pinned; its failures propagate to the caller. */
    private readonly resolve: (names: readonly string[]) => Promise<ResolvedAgent[]>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The pinned key of each name (undefined for a name the router does not know). */
  async keysFor(names: readonly string[]): Promise<Map<string, Uint8Array | undefined>> {
    const keys = new Map<string, Uint8Array | undefined>();
    const missing: string[] = [];
    for (const name of names) {
      const key = this.cache.get(name) ?? (await findPinnedKey(this.db, name));
      if (key === undefined) missing.push(name);
      else this.cache.set(name, key);
      keys.set(name, key);
    }
    if (missing.length === 0) return keys;
    for (const agent of await this.resolve(missing)) {
      if (!missing.includes(agent.name) || !("publicKey" in agent) || !checkPublicKey(agent.publicKey).ok) continue;
      const pinned = await pinKey(this.db, agent.name, agent.publicKey, this.now());
      this.cache.set(agent.name, pinned);
      keys.set(agent.name, pinned);
    }
    return keys;
  }
}

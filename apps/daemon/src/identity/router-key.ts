/**
 * The router's key, pinned at first contact (SPEC §5): afterwards only that key is accepted on the
 * link, and every certificate is checked against it. The pinned key lives in the daemon database.
 */
import type { DbOrTrx } from "../db/database.js";

async function pinRouterKey(db: DbOrTrx, key: Uint8Array, now: number): Promise<Uint8Array> {
  await db
    .insertInto("router_identity")
    .values({ id: 1, public_key: Buffer.from(key), pinned_at: now })
    .onConflict((oc) => oc.column("id").doNothing())
    .execute();
  const row = await db.selectFrom("router_identity").select("public_key").where("id", "=", 1).executeTakeFirstOrThrow();
  return new Uint8Array(row.public_key);
}

export class RouterKey {
  private pinned: Uint8Array | undefined;

  constructor(
    private readonly db: DbOrTrx,
    private readonly now: () => number = Date.now,
  ) {}

  /** The pinned key, once the link has met the router. */
  get current(): Uint8Array | undefined {
    return this.pinned;
  }

  /** Pins `key` at first contact; true when it is the pinned key. */
  async check(key: Uint8Array): Promise<boolean> {
    this.pinned = await pinRouterKey(this.db, key, this.now());
    return Buffer.from(this.pinned).equals(Buffer.from(key));
  }
}

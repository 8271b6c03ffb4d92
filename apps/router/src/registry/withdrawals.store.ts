/**
 * SQL for withdrawn names (migration 0005). A withdrawal deletes the agent's row and logs which key
 * held the name, in one transaction; routers read the log past the last row they saw, and
 * registration refuses a name the log holds. The table is
 * declared here, as the tokens' is, because only registration and the withdrawal watch read it.
 */
import type { Generated, Kysely } from "kysely";
import type { RouterDatabase } from "../db/database.js";

export interface NameWithdrawalsTable {
  id: Generated<number>;
  name: string;
  public_key: Uint8Array;
  registered_at: number;
  withdrawn_at: number;
}

export interface Withdrawal {
  readonly id: number;
  readonly name: string;
  readonly publicKey: Uint8Array;
  readonly registeredAt: number;
  readonly withdrawnAt: number;
}

const withWithdrawals = (db: Kysely<RouterDatabase>) => db.withTables<{ name_withdrawals: NameWithdrawalsTable }>();

const COLUMNS = ["id", "name", "public_key", "registered_at", "withdrawn_at"] as const;

function withdrawalOf(row: Omit<NameWithdrawalsTable, "id"> & { id: number | string }): Withdrawal {
  return {
    id: Number(row.id), // bigserial comes as a string from pg
    name: row.name,
    publicKey: new Uint8Array(row.public_key),
    registeredAt: Number(row.registered_at),
    withdrawnAt: Number(row.withdrawn_at),
  };
}

/**
 * Withdraws `name` from the key that holds it: the agent's row goes and the withdrawal is logged,
 * in one transaction. Undefined when the name is not registered (never was, or withdrawn already).
 */
export async function withdrawAgent(
  db: Kysely<RouterDatabase>,
  name: string,
  now: number,
): Promise<Withdrawal | undefined> {
  return db.transaction().execute(async (trx) => {
    const deleted = await trx
      .deleteFrom("agents")
      .where("name", "=", name)
      .returning(["name", "public_key", "registered_at"])
      .executeTakeFirst();
    if (deleted === undefined) return undefined;
    const row = await withWithdrawals(trx)
      .insertInto("name_withdrawals")
      .values({
        name,
        public_key: Buffer.from(deleted.public_key),
        registered_at: deleted.registered_at,
        withdrawn_at: now,
      })
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
    return withdrawalOf(row);
  });
}

/** Withdrawals logged after `id`, oldest first. */
export async function withdrawalsAfter(db: Kysely<RouterDatabase>, id: number): Promise<Withdrawal[]> {
  const rows = await withWithdrawals(db)
    .selectFrom("name_withdrawals")
    .select(COLUMNS)
    .where("id", ">", id)
    .orderBy("id")
    .execute();
  return rows.map(withdrawalOf);
}

/** The newest withdrawal's id, 0 when there is none. */
export async function lastWithdrawalId(db: Kysely<RouterDatabase>): Promise<number> {
  const row = await withWithdrawals(db)
    .selectFrom("name_withdrawals")
    .select((eb) => eb.fn.max("id").as("id"))
    .executeTakeFirst();
  return row?.id === null || row?.id === undefined ? 0 : Number(row.id);
}

/** When `name` was withdrawn, if ever (it is withdrawn once: no key registers it afterwards). */
export async function findWithdrawal(db: Kysely<RouterDatabase>, name: string): Promise<Withdrawal | undefined> {
  const row = await withWithdrawals(db)
    .selectFrom("name_withdrawals")
    .select(COLUMNS)
    .where("name", "=", name)
    .orderBy("id", "desc")
    .executeTakeFirst();
  return row === undefined ? undefined : withdrawalOf(row);
}

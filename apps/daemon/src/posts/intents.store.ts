/**
 * SQL for bound send intents: a PostId and its content, durable before anything is proposed (the
 * proposal waits for the commit's fsync, router-link.ts). Binding and retiring are prepared once.
 * The table holds only the intents still to be answered: a settled intent is deleted, in the
 * transaction that stores its certified record when it was certified (the record is then the
 * post's one durable copy, and its bytes carry the PostId), so the table stays a few pages that
 * every commit shares instead of one more random leaf a post and a second copy of every content.
 */
import { prepared } from "@social-harness/sqlite";
import type { Kysely } from "kysely";
import { startDurable, turnTransaction, type DaemonDatabase, type Db, type DbOrTrx, type Trx } from "../db/database.js";
import { RawStatements, type HeldStatements } from "../db/raw-statements.js";

const INSERT_INTENT = "INSERT INTO intents (post_id, conv, content, state, created_at) VALUES (?, ?, ?, 'bound', ?)";
const DELETE_INTENT = "DELETE FROM intents WHERE post_id = ?";

export interface IntentRow {
  readonly postId: string;
  readonly conv: string;
  readonly content: Uint8Array;
  readonly createdAt: number;
}

const selectIntent = prepared((db: Kysely<DaemonDatabase>, postId: string) =>
  db.selectFrom("intents").select("post_id").where("post_id", "=", postId),
);

/**
 * How binding ended. A failure inside the transaction comes before its commit; one from the commit
 * itself may or may not have committed, so the first intent is looked for: if it is absent, the
 * commit provably did not happen; if it is there, or the look-up fails, the outcome is unknown.
 * `stale`: the firewall's capture no longer held, and nothing was bound.
 */
export type BindOutcome =
  | { readonly outcome: "bound" | "stale" }
  | { readonly outcome: "failed-before-commit" | "absent-after-commit" | "unknown"; readonly cause: unknown };

class StaleCapture extends Error {}

/** Binds `intents` in one transaction, after `confirm` (the firewall's) agrees inside it. */
export async function bindDurably(
  db: Db,
  intents: readonly IntentRow[],
  confirm?: (trx: Trx) => Promise<boolean>,
): Promise<BindOutcome> {
  let inserted = false;
  const insert = (held: HeldStatements) => {
    for (const intent of intents)
      held.run(INSERT_INTENT, [intent.postId, intent.conv, Buffer.from(intent.content), intent.createdAt]);
    inserted = true;
  };
  try {
    if (confirm === undefined) await turnTransaction(db, "durable", insert);
    else
      await db.transaction().execute(async (trx) => {
        if (!(await confirm(trx))) throw new StaleCapture();
        insert(RawStatements.of(trx).within(trx));
      });
    // The group fsync is due whoever waits first; propose() waits for it after signing.
    startDurable(db);
    return { outcome: "bound" };
  } catch (cause) {
    if (cause instanceof StaleCapture) return { outcome: "stale" };
    if (!inserted) return { outcome: "failed-before-commit", cause };
    const present = await selectIntent(db, intents[0]!.postId).then(
      (result) => result.rows.length > 0,
      () => undefined,
    );
    return { outcome: present === false ? "absent-after-commit" : "unknown", cause };
  }
}

/**
 * Retires a settled intent: refused by the router, or certified and its record stored (then in the
 * record's own transaction, retireIntentHeld). Were the deletion lost to a power cut, the intent
 * would be bound again, proposed again, and answered with the same record or refusal.
 */
export async function retireIntent(db: DbOrTrx, postId: string): Promise<void> {
  await RawStatements.of(db).run(db, DELETE_INTENT, [postId]);
}

/** The same, inside a transaction the caller holds. */
export function retireIntentHeld(held: HeldStatements, postId: string): void {
  held.run(DELETE_INTENT, [postId]);
}

export async function boundIntents(db: DbOrTrx, conv?: string): Promise<IntentRow[]> {
  let query = db
    .selectFrom("intents")
    .select(["post_id", "conv", "content", "created_at"])
    .where("state", "=", "bound");
  if (conv !== undefined) query = query.where("conv", "=", conv);
  const rows = await query.orderBy("created_at").orderBy("post_id").execute();
  return rows.map((r) => ({
    postId: r.post_id,
    conv: r.conv,
    content: new Uint8Array(r.content),
    createdAt: r.created_at,
  }));
}

/** SQL for bound send intents: a PostId and its content, durable before anything is proposed. */
import type { DbOrTrx } from "../db/database.js";

export interface IntentRow {
  readonly postId: string;
  readonly conv: string;
  readonly content: Uint8Array;
  readonly createdAt: number;
}

export async function bindIntent(db: DbOrTrx, intent: IntentRow): Promise<void> {
  await db
    .insertInto("intents")
    .values({
      post_id: intent.postId,
      conv: intent.conv,
      content: Buffer.from(intent.content),
      state: "bound",
      created_at: intent.createdAt,
    })
    .execute();
}

export async function settleIntent(
  db: DbOrTrx,
  postId: string,
  state: "certified" | "refused",
  outcome: { recordHash?: string; detail?: string },
  now: number,
): Promise<void> {
  await db
    .updateTable("intents")
    .set({ state, record_hash: outcome.recordHash ?? null, detail: outcome.detail ?? null, settled_at: now })
    .where("post_id", "=", postId)
    .where("state", "=", "bound")
    .execute();
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

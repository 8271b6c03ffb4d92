/** SQL for bound send intents: a PostId and its content, durable before anything is proposed. */
import { prepared } from "@social-harness/sqlite";
import type { Kysely } from "kysely";
import type { DaemonDatabase, DbOrTrx } from "../db/database.js";

const insertIntent = prepared(
  (db: Kysely<DaemonDatabase>, postId: string, conv: string, content: Uint8Array, createdAt: number) =>
    db.insertInto("intents").values({ post_id: postId, conv, content, state: "bound", created_at: createdAt }),
);
const updateIntent = prepared(
  (
    db: Kysely<DaemonDatabase>,
    postId: string,
    state: string,
    recordHash: string | null,
    detail: string | null,
    now: number,
  ) =>
    db
      .updateTable("intents")
      .set({ state, record_hash: recordHash, detail, settled_at: now })
      .where("post_id", "=", postId)
      .where("state", "=", "bound"),
);

export interface IntentRow {
  readonly postId: string;
  readonly conv: string;
  readonly content: Uint8Array;
  readonly createdAt: number;
}

export async function bindIntent(db: DbOrTrx, intent: IntentRow): Promise<void> {
  await insertIntent(db, intent.postId, intent.conv, Buffer.from(intent.content), intent.createdAt);
}

export async function settleIntent(
  db: DbOrTrx,
  postId: string,
  state: "certified" | "refused",
  outcome: { recordHash?: string; detail?: string },
  now: number,
): Promise<void> {
  await updateIntent(db, postId, state, outcome.recordHash ?? null, outcome.detail ?? null, now);
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

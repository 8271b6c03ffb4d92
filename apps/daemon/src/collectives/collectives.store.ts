/** SQL for held collective requests and the operations this daemon started. */
import type { DbOrTrx } from "../db/database.js";

export interface HeldRequest {
  readonly id: string;
  readonly recordHash: string;
  readonly conv: string;
  readonly op: "gather" | "all_gather";
  readonly requester: string;
  readonly deadlineAt: number;
  readonly resultToken: string | null;
}

export async function findHeldRequest(db: DbOrTrx, id: string): Promise<HeldRequest | undefined> {
  const row = await db.selectFrom("collective_requests").selectAll().where("id", "=", id).executeTakeFirst();
  return row === undefined
    ? undefined
    : {
        id: row.id,
        recordHash: row.record_hash,
        conv: row.conv,
        op: row.op as HeldRequest["op"],
        requester: row.requester,
        deadlineAt: row.deadline_at,
        resultToken: row.result_token,
      };
}

export async function holdRequest(db: DbOrTrx, request: Omit<HeldRequest, "resultToken">, now: number): Promise<void> {
  await db
    .insertInto("collective_requests")
    .values({
      id: request.id,
      record_hash: request.recordHash,
      conv: request.conv,
      op: request.op,
      requester: request.requester,
      deadline_at: request.deadlineAt,
      received_at: now,
    })
    .execute();
}

/** Marks the close of a held request applied (by the close record's hash). */
export async function recordResult(db: DbOrTrx, id: string, closeHash: string): Promise<void> {
  await db.updateTable("collective_requests").set({ result_token: closeHash }).where("id", "=", id).execute();
}

export async function insertOperation(
  db: DbOrTrx,
  operation: { id: string; op: string; address: string; question: string; deadlineAt: number },
  now: number,
): Promise<void> {
  await db
    .insertInto("collective_operations")
    .values({
      id: operation.id,
      op: operation.op,
      address: operation.address,
      question: operation.question,
      deadline_at: operation.deadlineAt,
      state: "open",
      created_at: now,
    })
    .execute();
}

export async function settleOperation(
  db: DbOrTrx,
  id: string,
  state: "done" | "failed",
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable("collective_operations")
    .set({ state, settled_at: now })
    .where("id", "=", id)
    .where("state", "=", "open")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function openOperations(db: DbOrTrx): Promise<{ id: string; op: string; address: string }[]> {
  return db.selectFrom("collective_operations").select(["id", "op", "address"]).where("state", "=", "open").execute();
}

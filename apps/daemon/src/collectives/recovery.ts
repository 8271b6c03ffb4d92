/**
 * Restart recovery (seed 000 "MCP Events and inbox"): collective state is volatile. At startup,
 * before anything is delivered, every unread request whose response context was lost is retired
 * together with its pending row, and a separately identified operationFailed item explains it;
 * the old token is never rebound. Operations this daemon started and did not finish fail the same
 * way. Acknowledged requests are left alone: they never become actionable again.
 */
import type { InboundItem } from "@social-harness/protocol";
import type { DaemonStore } from "../db/database.js";
import type { Inbox } from "../inbox/inbox.service.js";
import { settleInboxRow } from "../inbox/inbox.store.js";
import { openOperations, settleOperation } from "./collectives.store.js";

export const LOST_REQUEST =
  "This daemon restarted and lost what it needs to answer this request; the request can no longer be answered.";
export const LOST_OPERATION = "This daemon restarted before the operation completed; its answers were lost.";

export async function recoverCollectives(
  store: DaemonStore,
  inbox: Inbox,
  now: () => number,
): Promise<{ retired: number; failed: number }> {
  const outcome = await store.db.transaction().execute(async (trx) => {
    const requests = await trx
      .selectFrom("inbox")
      .select(["token", "item"])
      .where("state", "=", "pending")
      .where("kind", "=", "collectiveRequest")
      .orderBy("id")
      .execute();
    for (const row of requests) {
      const item = JSON.parse(row.item) as Extract<InboundItem, { kind: "collectiveRequest" }>;
      await settleInboxRow(trx, row.token, "retired", "restart", now());
      await inbox.admit(trx, { item: { kind: "operationFailed", id: item.id, to: item.to, error: LOST_REQUEST } });
    }
    const operations = await openOperations(trx);
    for (const operation of operations) {
      await settleOperation(trx, operation.id, "failed", now());
      await inbox.admit(trx, {
        item: { kind: "operationFailed", id: operation.id, to: operation.address, error: LOST_OPERATION },
      });
    }
    return { retired: requests.length, failed: operations.length };
  });
  if (outcome.retired + outcome.failed > 0) inbox.changed();
  return outcome;
}

/**
 * Restart recovery (seed 000 "MCP Events and inbox"): collective state is volatile. At startup,
 * before anything is delivered, every unread request whose response context was lost is retired
 * together with its pending row, and a separately identified operationFailed item explains it;
 * the old token is never rebound. An operation this daemon started and did not finish fails the
 * same way, unless it is an all_gather whose close was already certified and stored: its result
 * comes from certified history, so recovery derives it. Either way each operation ends once.
 */
import { readContent, readRecord, type ClosePart, type InboundItem } from "@social-harness/protocol";
import type { DaemonStore, Trx } from "../db/database.js";
import type { History } from "../history/history.service.js";
import { localVerdictOf } from "../firewall/local-verdict.js";
import type { Inbox } from "../inbox/inbox.service.js";
import { applyClose } from "./close.js";
import { findHeldRequest, openOperations, settleOperation } from "./collectives.store.js";

export const LOST_REQUEST =
  "This daemon restarted and lost what it needs to answer this request; the request can no longer be answered.";
export const LOST_OPERATION = "This daemon restarted before the operation completed; its answers were lost.";

interface RecoveryDeps {
  readonly store: DaemonStore;
  readonly inbox: Inbox;
  readonly history: History;
  readonly self: string;
}

export async function recoverCollectives(
  deps: RecoveryDeps,
  now: () => number,
): Promise<{ retired: number; failed: number; completed: number }> {
  const { inbox } = deps;
  const outcome = await deps.store.db.transaction().execute(async (trx) => {
    const requests = await trx
      .selectFrom("inbox")
      .select(["token", "item"])
      .where("state", "=", "pending")
      .where("kind", "=", "collectiveRequest")
      .orderBy("id")
      .execute();
    for (const row of requests) {
      const item = JSON.parse(row.item) as Extract<InboundItem, { kind: "collectiveRequest" }>;
      await inbox.settleIn(trx, row.token, "retired", "restart", now());
      await inbox.admit(trx, { item: { kind: "operationFailed", id: item.id, to: item.to, error: LOST_REQUEST } });
    }
    let completed = 0;
    let failed = 0;
    for (const operation of await openOperations(trx)) {
      const close = operation.op === "all_gather" ? await findOwnClose(trx, deps, operation.id) : undefined;
      const result = close === undefined ? undefined : await applyClose(trx, deps.history, close, localVerdictOf);
      if (result?.kind === "result") {
        await inbox.admit(trx, {
          item: result.item,
          ...(result.guidance === undefined ? {} : { guidance: result.guidance }),
          conv: close!.record.conv,
          recordHash: close!.hash,
        });
        await settleOperation(trx, operation.id, "done", now());
        completed++;
        continue;
      }
      await settleOperation(trx, operation.id, "failed", now());
      await inbox.admit(trx, {
        item: { kind: "operationFailed", id: operation.id, to: operation.address, error: LOST_OPERATION },
      });
      failed++;
    }
    return { retired: requests.length, failed, completed };
  });
  if (outcome.retired + outcome.failed + outcome.completed > 0) inbox.changed();
  return outcome;
}

/** Our stored close of the all_gather `id`, searched after its request in the group's history. */
async function findOwnClose(
  trx: Trx,
  deps: RecoveryDeps,
  id: string,
): Promise<{ record: { conv: string; author: string }; hash: string; part: ClosePart } | undefined> {
  const held = await findHeldRequest(trx, id);
  const request = held === undefined ? undefined : await deps.history.recordByHash(trx, held.recordHash);
  if (held === undefined || request === undefined) return undefined;
  let after = request.seq;
  for (;;) {
    const page = await deps.history.recordsAfter(trx, held.conv, after, 200);
    for (const stored of page) {
      if (stored.author !== deps.self) continue;
      const read = readRecord(stored.bytes);
      const content = read.ok ? readContent(read.record.content) : undefined;
      const part = content?.ok === true ? content.collective : undefined;
      if (part?.op === "close" && part.id === id)
        return { record: { conv: held.conv, author: deps.self }, hash: stored.hash, part };
    }
    if (page.length < 200) return undefined;
    after = page.at(-1)!.seq;
  }
}

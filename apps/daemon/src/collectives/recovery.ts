/**
 * Restart recovery (seed 000 "MCP Events and inbox"): collective state is volatile. At startup,
 * before anything is delivered, every unread request whose response context was lost is retired
 * together with its pending row, and a separately identified operationFailed item explains it;
 * the old token is never rebound. An operation this daemon started and did not finish fails the
 * same way, unless it is an all_gather whose close was already certified and stored: its result
 * comes from certified history, so recovery derives it. Either way each operation ends once.
 */
import {
  readContent,
  readRecord,
  type ClosePart,
  type CollectivePart,
  type InboundItem,
} from "@social-harness/protocol";
import type { DaemonStore, Trx } from "../db/database.js";
import type { History } from "../history/history.service.js";
import { localVerdictsOf } from "../firewall/local-verdict.js";
import type { Inbox } from "../inbox/inbox.service.js";
import { applyClose } from "./close.js";
import { findHeldRequest, openOperations, settleOperation } from "./collectives.store.js";

/** The operationFailed error of a request lost at a restart: it names the question. */
export const lostRequest = (question: string): string =>
  `This daemon restarted and lost what it needs to answer the request ${JSON.stringify(question)}; it can no longer be answered.`;
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
): Promise<{ retired: number; lost: number; failed: number; completed: number }> {
  const { inbox } = deps;
  const outcome = await deps.store.db.transaction().execute(async (trx) => {
    const requests = await inbox.pendingRequestRowsIn(trx);
    let lost = 0;
    for (const row of requests) {
      const item = JSON.parse(row.item) as Extract<InboundItem, { kind: "collectiveRequest" }>;
      await inbox.settleIn(trx, row.token, "retired", "restart", now());
      if (await settledRequest(trx, deps, item, row, now())) continue;
      await inbox.admit(trx, {
        item: { kind: "operationFailed", id: item.id, to: item.to, error: lostRequest(item.question) },
      });
      lost++;
    }
    let completed = 0;
    let failed = 0;
    for (const operation of await openOperations(trx)) {
      const close = operation.op === "all_gather" ? await findOwnClose(trx, deps, operation.id) : undefined;
      const result = close === undefined ? undefined : await applyClose(trx, deps.history, close, localVerdictsOf);
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
    return { retired: requests.length, lost, failed, completed };
  });
  if (outcome.lost + outcome.failed + outcome.completed > 0) inbox.changed();
  return outcome;
}

/**
 * Whether a request needs no answer any more, so it is retired silently: its deadline passed, its
 * close was applied, or this daemon's answer to it is in certified history.
 */
async function settledRequest(
  trx: Trx,
  deps: RecoveryDeps,
  item: Extract<InboundItem, { kind: "collectiveRequest" }>,
  row: { conv: string | null; record_hash: string | null },
  now: number,
): Promise<boolean> {
  if (item.deadlineAt <= now) return true;
  if ((await findHeldRequest(trx, item.id))?.resultToken != null) return true;
  if (row.conv === null || row.record_hash === null) return false;
  const answer = await findOwnPart(trx, deps, row.conv, row.record_hash, (p) => p.op === "answer" && p.id === item.id);
  return answer !== undefined;
}

/** Our stored close of the all_gather `id`, searched after its request in the group's history. */
async function findOwnClose(
  trx: Trx,
  deps: RecoveryDeps,
  id: string,
): Promise<{ record: { conv: string; author: string }; hash: string; part: ClosePart } | undefined> {
  const held = await findHeldRequest(trx, id);
  if (held === undefined) return undefined;
  const found = await findOwnPart(trx, deps, held.conv, held.recordHash, (p) => p.op === "close" && p.id === id);
  return found?.part.op === "close"
    ? { record: { conv: held.conv, author: deps.self }, hash: found.hash, part: found.part }
    : undefined;
}

/** The first record of ours after `afterHash` in `conv` whose collective part matches. */
async function findOwnPart(
  trx: Trx,
  deps: RecoveryDeps,
  conv: string,
  afterHash: string,
  matches: (part: CollectivePart) => boolean,
): Promise<{ hash: string; part: CollectivePart } | undefined> {
  const request = await deps.history.recordByHash(trx, conv, afterHash);
  if (request === undefined) return undefined;
  let after = request.seq;
  for (;;) {
    const page = await deps.history.recordsAfter(trx, conv, after, 200);
    for (const stored of page) {
      if (stored.author !== deps.self) continue;
      const read = readRecord(stored.bytes);
      const content = read.ok ? readContent(read.record.content) : undefined;
      const part = content?.ok === true ? content.collective : undefined;
      if (part !== undefined && matches(part)) return { hash: stored.hash, part };
    }
    if (page.length < 200) return undefined;
    after = page.at(-1)!.seq;
  }
}

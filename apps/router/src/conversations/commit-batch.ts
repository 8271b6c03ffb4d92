/**
 * One group commit (SPEC §5): certifies a batch of appends inside one transaction with a fixed
 * number of statements, whatever the batch size: create the conversations it opens, read (on
 * PostgreSQL, lock) every conversation it touches and its head, look up the posts it repeats,
 * insert its records (which move the heads: a head is its conversation's last record). The caller
 * commits; nothing it returns may leave before that commit is durable.
 */
import { encodeSignatureList, signCertificate, type SigningKey } from "@social-harness/protocol";
import type { Transaction } from "kysely";
import type { Dialect, RouterDatabase } from "../db/database.js";
import {
  createConversation,
  findRecordsByPosts,
  insertRecords,
  lockHeads,
  postKey,
  type ConversationHead,
  type NewRecord,
} from "./conversations.store.js";
import type { AppendOutcome, HeadCommit } from "./append.service.js";

export interface BatchEnv {
  readonly dialect: Dialect;
  readonly routerKey: SigningKey;
  readonly now: () => number;
}

/** The error name of a batch whose record was stored meanwhile (a race another router won). */
export const BATCH_CONFLICT = "BatchConflict";

export async function commitBatch(
  trx: Transaction<RouterDatabase>,
  env: BatchEnv,
  inputs: readonly HeadCommit[],
): Promise<AppendOutcome[]> {
  const now = env.now();
  const heads = new Map<string, ConversationHead>();
  for (const input of inputs) {
    if (input.createMembers !== undefined && !heads.has(input.conv)) {
      if (await createConversation(trx, input.conv, input.createMembers, now)) {
        heads.set(input.conv, { seq: 0, hash: null });
      }
    }
  }
  const unread = [...new Set(inputs.map((i) => i.conv))].filter((conv) => !heads.has(conv));
  for (const [conv, head] of await lockHeads(trx, env.dialect, unread)) heads.set(conv, head);
  // Read after the locks: on PostgreSQL a post another router certified meanwhile is seen here.
  const stored = await findRecordsByPosts(trx, inputs);

  const pending = new Map<string, NewRecord>();
  const outcomes = inputs.map((input): AppendOutcome => {
    const key = postKey(input.author, input.postId);
    const existing = stored.get(key) ?? pending.get(key);
    if (existing !== undefined) {
      return { kind: "certified", record: existing, existed: true, differs: existing.hash !== input.hash };
    }
    const head = heads.get(input.conv);
    if (head === undefined) {
      return { kind: "refused", reason: "no-conversation", detail: `${input.conv} has no genesis yet` };
    }
    if (input.prev !== head.hash) return { kind: "head-moved", conv: input.conv, head: head.hash };
    const seq = head.seq + 1;
    const record: NewRecord = {
      conv: input.conv,
      seq,
      hash: input.hash,
      bytes: input.bytes,
      signatures: encodeSignatureList(input.signatures),
      certificate: signCertificate(env.routerKey, { conv: input.conv, seq, record: input.hash }),
      author: input.author,
      postId: input.postId,
      committedAt: now,
    };
    pending.set(key, record);
    heads.set(input.conv, { seq, hash: input.hash });
    return { kind: "certified", record, existed: false, differs: false };
  });

  const rows = [...pending.values()];
  const inserted = await insertRecords(trx, rows);
  if (inserted.size !== rows.length) {
    throw Object.assign(new Error("a record of the batch was stored meanwhile"), { name: BATCH_CONFLICT });
  }
  return outcomes;
}

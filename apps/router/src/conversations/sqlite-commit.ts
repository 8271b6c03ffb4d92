/**
 * The SQLite group commit on prepared better-sqlite3 statements (SPEC §3, hot path): the same rules
 * as commitBatch, one transaction per batch, every statement prepared once. The writer is the only
 * writer of conversations and records in the SQLite file, so heads (a head is its conversation's
 * last record) are kept in memory after their first read; a batch's head moves reach that cache
 * only once its COMMIT returned. When batches move between the event loop's connection and the
 * writer thread's, the side they move to forgets its heads first.
 */
import type Database from "better-sqlite3";
import { signCertificate, type SigningKey } from "@social-harness/protocol";
import { BATCH_CONFLICT } from "./commit-batch.js";
import type { ConversationHead } from "./conversations.store.js";

/** One append as the writer thread receives it: the record, its encoded signature list. */
export interface WireCommit {
  readonly conv: string;
  readonly bytes: Uint8Array;
  readonly hash: string;
  readonly prev: string | null;
  readonly author: string;
  readonly postId: string;
  readonly signatures: Uint8Array;
  readonly createMembers?: readonly string[];
}

/** What the writer answers per append; a new record's fields are the caller's own input. */
export type WireOutcome =
  | { readonly k: "new"; readonly seq: number; readonly certificate: Uint8Array }
  | {
      readonly k: "existed";
      readonly record: {
        conv: string;
        seq: number;
        hash: string;
        bytes: Uint8Array;
        signatures: Uint8Array;
        certificate: Uint8Array;
      };
    }
  | { readonly k: "head-moved"; readonly conv: string; readonly head: string | null }
  | { readonly k: "no-conversation"; readonly conv: string };

interface StoredRow {
  conv: string;
  seq: number;
  hash: string;
  bytes: Uint8Array;
  signatures: Uint8Array;
  certificate: Uint8Array;
}

export function sqliteCommitter(sqlite: Database.Database, routerKey: SigningKey, now: () => number) {
  // A conversation's head is its last record (records' primary key (conv, seq)); a conversation
  // that exists without one has the empty head.
  const selectHead = sqlite.prepare<[string, string], { seq: number | null; hash: string | null }>(
    "SELECT r.seq, r.hash FROM conversations c LEFT JOIN " +
      "(SELECT seq, hash FROM records WHERE conv = ? ORDER BY seq DESC LIMIT 1) r ON 1 WHERE c.conv = ?",
  );
  const insertConversation = sqlite.prepare<[string, number]>(
    "INSERT INTO conversations (conv, created_at) VALUES (?, ?) ON CONFLICT (conv) DO NOTHING",
  );
  const insertMember = sqlite.prepare<[string, string]>("INSERT INTO members (conv, member) VALUES (?, ?)");
  const selectByPost = sqlite.prepare<[string, string], StoredRow>(
    "SELECT conv, seq, hash, bytes, signatures, certificate FROM records WHERE author = ? AND post_id = ?",
  );
  const insertRecord = sqlite.prepare<
    [string, number, string, string, string, Uint8Array, Uint8Array, Uint8Array, number]
  >(
    "INSERT INTO records (conv, seq, hash, author, post_id, bytes, signatures, certificate, committed_at) " +
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
  );
  /** The record its author already certified under this PostId, if any. */
  const existing = (input: WireCommit): WireOutcome | undefined => {
    const stored = selectByPost.get(input.author, input.postId);
    return stored === undefined ? undefined : { k: "existed", record: stored };
  };
  /** Committed heads; a conversation absent here is read from the file on first use. */
  const heads = new Map<string, ConversationHead>();

  const run = sqlite.transaction((inputs: readonly WireCommit[], moved: Map<string, ConversationHead>) => {
    const at = now();
    const headOf = (conv: string): ConversationHead | undefined => {
      const known = moved.get(conv) ?? heads.get(conv);
      if (known !== undefined) return known;
      const row = selectHead.get(conv, conv);
      if (row === undefined) return undefined;
      const head = { seq: row.seq ?? 0, hash: row.hash };
      heads.set(conv, head);
      return head;
    };
    const pending = new Map<string, StoredRow>();
    const outcomes = inputs.map((input): WireOutcome => {
      if (input.createMembers !== undefined && headOf(input.conv) === undefined) {
        if (insertConversation.run(input.conv, at).changes > 0) {
          for (const member of input.createMembers) insertMember.run(input.conv, member);
        }
        moved.set(input.conv, { seq: 0, hash: null });
      }
      const key = `${input.author}\0${input.postId}`;
      const earlier = pending.get(key);
      if (earlier !== undefined) {
        const { conv, seq, hash, bytes, signatures, certificate } = earlier;
        return { k: "existed", record: { conv, seq, hash, bytes, signatures, certificate } };
      }
      // A post already certified under its PostId (a retry, or the same id on other bytes) answers
      // with its record. It cannot extend the head (its own record moved the head past its prev),
      // unless other bytes reuse the PostId on the current head: then the insert finds it. So the
      // look-up runs only where the fast path stops.
      const head = headOf(input.conv);
      if (head === undefined) return existing(input) ?? { k: "no-conversation", conv: input.conv };
      if (input.prev !== head.hash) return existing(input) ?? { k: "head-moved", conv: input.conv, head: head.hash };
      const seq = head.seq + 1;
      const certificate = signCertificate(routerKey, { conv: input.conv, seq, record: input.hash });
      const inserted = insertRecord.run(
        input.conv,
        seq,
        input.hash,
        input.author,
        input.postId,
        input.bytes,
        input.signatures,
        certificate,
        at,
      );
      if (inserted.changes === 0) {
        const found = existing(input);
        if (found !== undefined) return found;
        throw Object.assign(new Error("a record of the batch was stored meanwhile"), { name: BATCH_CONFLICT });
      }
      moved.set(input.conv, { seq, hash: input.hash });
      // A literal, not a spread of the input: a spread and two more fields built a new hidden class
      // for every record.
      pending.set(key, {
        conv: input.conv,
        seq,
        hash: input.hash,
        bytes: input.bytes,
        signatures: input.signatures,
        certificate,
      });
      return { k: "new", seq, certificate };
    });
    return outcomes;
  });

  return {
    /** Drops the cached heads: another connection committed since this one last did. */
    forget(): void {
      heads.clear();
    },
    /** Runs one batch in one transaction (synchronous=FULL: durable when this returns). */
    commit(inputs: readonly WireCommit[]): WireOutcome[] {
      const moved = new Map<string, ConversationHead>();
      const outcomes = run.immediate(inputs, moved);
      for (const [conv, head] of moved) heads.set(conv, head);
      return outcomes;
    },
  };
}

/** The certified history's tables: conversations with their contiguous cursor, and stored records. */
import type { Generated } from "kysely";

export interface ConversationsTable {
  conv: string;
  /** JSON list of the certified members, sorted. */
  members: string;
  /** Every record up to this seq is stored. */
  contiguous_seq: number;
  created_at: number;
}

export interface RecordsTable {
  id: Generated<number>;
  conv: string;
  seq: number;
  hash: string;
  kind: string;
  author: string;
  post_id: string;
  at: number;
  bytes: Uint8Array;
  signatures: Uint8Array;
  certificate: Uint8Array;
  /** What classification did: "own", "delivered", "held", "consumed". */
  disposition: string;
  stored_at: number;
  /** 1 when the record is in `records_by_hash`: a record the daemon looks up by hash (0012). */
  hash_indexed: number;
}

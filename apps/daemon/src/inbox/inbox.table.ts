/** The runtime inbox's table: classified items with their tokens and tombstones. */
import type { Generated } from "kysely";

export interface InboxTable {
  id: Generated<number>;
  token: string;
  kind: string;
  item: string;
  guidance: string | null;
  size: number;
  conv: string | null;
  record_hash: string | null;
  /** "pending", then "acknowledged" or "retired" (tombstones keep token and payload). */
  state: string;
  created_at: number;
  settled_at: number | null;
  settled_by: string | null;
}

/** The table of items held for the owner, by trust or by the firewall. */
import type { Generated } from "kysely";

export interface HoldsTable {
  id: Generated<number>;
  record_hash: string;
  sender: string;
  conv: string;
  item: string;
  reason: string;
  /** "trust" or "firewall". */
  source: string;
  check_id: string | null;
  /** The check's CheckedGuidance (JSON), for the owner. */
  guidance: string | null;
  created_at: number;
  released_at: number | null;
  released_token: string | null;
  discarded_at: number | null;
}

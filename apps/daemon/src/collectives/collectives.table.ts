/** The collectives' tables: held requests and the operations this daemon started. */

export interface CollectiveRequestsTable {
  id: string;
  record_hash: string;
  conv: string;
  op: string;
  requester: string;
  deadline_at: number;
  received_at: number;
  /** The token of the result item, once the all_gather close was applied here. */
  result_token: string | null;
}

export interface CollectiveOperationsTable {
  id: string;
  op: string;
  address: string;
  question: string;
  deadline_at: number;
  /** "open", then "done" or "failed". */
  state: string;
  created_at: number;
  settled_at: number | null;
}

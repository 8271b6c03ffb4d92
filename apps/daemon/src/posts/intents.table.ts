/** The bound send intents' table: a PostId and its content, durable before anything is proposed. */

export interface IntentsTable {
  post_id: string;
  conv: string;
  content: Uint8Array;
  /** "bound" until certified ("certified") or refused by the router ("refused"). */
  state: string;
  record_hash: string | null;
  detail: string | null;
  created_at: number;
  settled_at: number | null;
}

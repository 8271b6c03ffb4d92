/**
 * The bound send intents' table: a PostId and its content, durable before anything is proposed,
 * until the router answers it (posts/intents.store.ts retires it then). Since migration 0006 every
 * row is "bound"; `record_hash`, `detail` and `settled_at` are what settled rows kept before it.
 */

export interface IntentsTable {
  post_id: string;
  conv: string;
  content: Uint8Array;
  /** "bound" (settled rows are deleted; before migration 0006 "certified" or "refused"). */
  state: string;
  record_hash: string | null;
  detail: string | null;
  created_at: number;
  settled_at: number | null;
}

/** The firewall's tables: policy revisions, the private inbound queue and the check audit. */
import type { Generated } from "kysely";

export interface FirewallPoliciesTable {
  revision: number;
  policy: string;
  author: string;
  created_at: number;
}

export interface FirewallQueueTable {
  id: Generated<number>;
  conv: string;
  record_hash: string;
  sender: string;
  kind: string;
  payload: string;
  created_at: number;
}

export interface FirewallChecksTable {
  id: Generated<number>;
  check_id: string;
  direction: string;
  conv: string;
  record_hash: string | null;
  post_id: string | null;
  subjects: string;
  policy_revision: number;
  mode: string;
  decision: string;
  outcome: string;
  middlewares: string;
  guidance: string | null;
  stale: number;
  latency_us: number;
  created_at: number;
}

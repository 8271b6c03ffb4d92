/**
 * The firewall as its owner reaches it (SPEC §10 owner surfaces): the policy and its revisions,
 * the audit of recent checks, and replay of a draft over the last stored records.
 */
import { resultQuestionOf } from "../collectives/close.js";
import type { DaemonStore } from "../db/database.js";
import type { History } from "../history/history.service.js";
import { inboundCheckOf, listChecks, outboundCheckOf, type CheckRecord } from "./checks.store.js";
import { compilePolicy } from "./engine.js";
import type { FirewallPolicy } from "./policy.schema.js";
import { FirewallPolicyError, type FirewallPolicies, type PolicyRevision } from "./policy.service.js";
import { localVerdictsOf } from "./local-verdict.js";
import { InboundClock } from "./rate.middleware.js";
import { replayRecords, type ReplayEntry, type ReplaySummary } from "./replay.js";

export class Firewall {
  constructor(
    private readonly store: DaemonStore,
    private readonly self: string,
    private readonly policies: FirewallPolicies,
    private readonly history: History,
  ) {}

  get(): { policy: FirewallPolicy; revision: number } {
    return this.policies.get();
  }

  set(policy: unknown, author = "owner"): Promise<{ revision: number }> {
    return this.policies.set(policy, author);
  }

  revisions(): Promise<PolicyRevision[]> {
    return this.policies.revisions();
  }

  /** The audit, newest first; `cursor` continues after the last page. */
  async checks(page: { cursor?: number; limit: number }): Promise<{ checks: CheckRecord[]; nextCursor?: number }> {
    const rows = await listChecks(this.store.db, page.cursor, page.limit + 1);
    const shown = rows.slice(0, page.limit);
    return rows.length > page.limit ? { checks: shown, nextCursor: shown.at(-1)!.id } : { checks: shown };
  }

  /** What `document` would decide over the last `limit` stored records, beside what was decided. */
  async replay(document: unknown, limit: number): Promise<{ summary: ReplaySummary; entries: ReplayEntry[] }> {
    const read = this.policies.validate(document);
    if (!read.ok) throw new FirewallPolicyError(read.issues);
    let now = 0;
    const clock = new InboundClock();
    const draft = compilePolicy(0, read.policy, { apiKeys: read.apiKeys, clock, now: () => now });
    const rows = (await this.history.latest(limit)).reverse();
    return replayRecords(this.self, draft, rows, {
      setNow: (at) => (now = at),
      arrived: (at) => clock.arrived(at),
      checkOf: (row) =>
        row.author === this.self ? outboundCheckOf(this.store.db, row.postId) : inboundCheckOf(this.store.db, row.hash),
      resultQuestion: async (id) => (await resultQuestionOf(this.store.db, this.history, id, localVerdictsOf)) ?? "",
    });
  }
}

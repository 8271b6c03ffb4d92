/**
 * Trust (SPEC §5, seed 002 "Identity And Trust"): a certified record is not admission by itself.
 * Under the `open` policy any registered agent is admitted; under `allowlist` only agents the
 * owner trusts. The list lives in the database and changes only through the owner API; admission
 * (ingress/admission.ts) holds what an untrusted sender sends and releases it when trusted.
 */
import type { DaemonStore, DbOrTrx } from "../db/database.js";
import { addTrustedAgent, isTrustedAgent, listTrustedAgents, removeTrustedAgent } from "./trust.store.js";

export type TrustPolicy = "open" | "allowlist";

export class Trust {
  constructor(
    private readonly store: DaemonStore,
    readonly policy: TrustPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  async admits(db: DbOrTrx, sender: string): Promise<boolean> {
    return this.policy === "open" || (await isTrustedAgent(db, sender));
  }

  /** Why an untrusted sender's item is held. */
  reasonFor(sender: string): string {
    return `${sender} is not on the trust list (policy: ${this.policy})`;
  }

  list(): Promise<{ name: string; addedAt: number }[]> {
    return listTrustedAgents(this.store.db);
  }

  add(db: DbOrTrx, name: string): Promise<void> {
    return addTrustedAgent(db, name, this.now());
  }

  async remove(name: string): Promise<{ removed: boolean }> {
    return { removed: await removeTrustedAgent(this.store.db, name) };
  }
}

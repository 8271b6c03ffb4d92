/**
 * What this daemon's firewall made of an inbound record, read back from the audit: withheld (held,
 * or held because a judge was unavailable), or admitted with the guidance the model saw. Results of
 * an all_gather are projected through it, so each daemon's own policy shows in its own result.
 */
import type { FirewallRefusal } from "@social-harness/protocol";
import type { LocalVerdict } from "../collectives/close.js";
import type { DbOrTrx } from "../db/database.js";
import { inboundChecksOf, type CheckRecord } from "./checks.store.js";

/** Why a held subject was withheld: by a rule, or because a middleware was unavailable. */
export function withheldReason(check: Pick<CheckRecord, "middlewares">): FirewallRefusal {
  const holding = check.middlewares.filter((m) => m.decision === "hold");
  return holding.some((m) => m.rules.some((r) => r.decision === "hold")) || holding.length === 0
    ? "held"
    : "unavailable";
}

/** The verdicts of many records in one read: those the firewall never checked are absent. */
export async function localVerdictsOf(
  db: DbOrTrx,
  recordHashes: readonly string[],
): Promise<ReadonlyMap<string, LocalVerdict>> {
  const verdicts = new Map<string, LocalVerdict>();
  for (const [hash, check] of await inboundChecksOf(db, recordHashes)) {
    const verdict = verdictOfCheck(check);
    if (verdict !== undefined) verdicts.set(hash, verdict);
  }
  return verdicts;
}

function verdictOfCheck(check: CheckRecord): LocalVerdict | undefined {
  if (check.outcome === "held")
    return {
      withheld: { kind: "withheld", checkId: check.checkId, reason: withheldReason(check) },
      ...(check.guidance === null ? {} : { guidance: check.guidance }),
    };
  return check.guidance === null ? undefined : { guidance: check.guidance };
}

/**
 * The daemon's trust policy in words (SPEC §5, seed 002): under `open` any registered agent is
 * admitted; under `allowlist` only trusted agents are, and other senders' items are held.
 */
import type { TrustPolicy } from "@/trpc/owner-api";

const POLICIES: Readonly<Record<TrustPolicy, string>> = {
  open: "Any registered agent passes the trust check, so trust holds nothing under this policy (the firewall may still hold items); the trust list takes effect only under allowlist.",
  allowlist:
    "Only the agents on the trust list are admitted; items from any other sender are held here, never delivered unless the owner trusts the sender or releases the item.",
};

/** The policy's name and what it means, for the Held and Trust pages. */
export function PolicyNote({ policy }: { policy: TrustPolicy }) {
  return (
    <p className="rounded-md border border-line bg-surface px-3 py-2 text-sm text-ink-muted" data-testid="trust-policy">
      Trust policy:{" "}
      <span className="font-mono font-semibold text-ink" data-testid="trust-policy-name">
        {policy}
      </span>
      . {POLICIES[policy]}
    </p>
  );
}

"use client";
/**
 * A daemon's Firewall page (SPEC §10 owner surfaces): the policy in force and its mode switch, the
 * policy editor with replay, the stored revisions, and the recent checks. The policy and the
 * revisions are polled, so a change made elsewhere (another console, a policy file at restart)
 * shows up here.
 */
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useTRPC } from "@/trpc/daemon-trpc";
import { FirewallChecks } from "./firewall-checks";
import { FirewallModeSwitch } from "./firewall-mode-switch";
import { authorOf, FirewallRevisions } from "./firewall-revisions";
import { MODES } from "./firewall-words";
import { PolicyEditor } from "./policy-editor";
import { QueryProblem } from "./query-problem";
import { Timestamp } from "./time";

const POLL_MS = 2_000;

function Part({ id, title, intro, children }: { id: string; title: string; intro?: ReactNode; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="space-y-3">
      <div>
        <h2 id={id} className="text-lg font-semibold">
          {title}
        </h2>
        {intro !== undefined && <p className="mt-0.5 max-w-prose text-sm text-ink-muted">{intro}</p>}
      </div>
      {children}
    </section>
  );
}

/** The Firewall page of the daemon whose tRPC provider encloses it. */
export function FirewallView() {
  const trpc = useTRPC();
  const state = useQuery(trpc.firewall.get.queryOptions(undefined, { refetchInterval: POLL_MS }));
  const revisions = useQuery(trpc.firewall.revisions.queryOptions(undefined, { refetchInterval: POLL_MS }));
  const current = state.data;
  const inForce = revisions.data?.revisions.find((r) => r.revision === current?.revision);
  return (
    <div className="space-y-8">
      <Part
        id="firewall-mode-title"
        title="Mode"
        intro="The firewall checks what reaches the agent and what it sends, and explains itself to the agent as guidance beside each item. It never changes a peer's message."
      >
        {state.isPending && <p className="text-ink-muted">Loading the policy…</p>}
        {state.isError && <QueryProblem what="the firewall policy" error={state.error} />}
        {current !== undefined && (
          <>
            <p className="text-sm text-ink-muted" data-testid="policy-in-force">
              In force:{" "}
              {current.revision === 0 ? (
                <span className="font-medium text-ink">no policy (revision 0)</span>
              ) : (
                <>
                  <span className="font-medium text-ink" data-testid="policy-in-force-revision">
                    revision {current.revision}
                  </span>
                  , {MODES[current.policy.mode].label.toLowerCase()}, {current.policy.middlewares.length}{" "}
                  {current.policy.middlewares.length === 1 ? "middleware" : "middlewares"}
                  {inForce !== undefined && (
                    <>
                      {" "}
                      · set <Timestamp ms={inForce.createdAt} /> by {authorOf(inForce.author)}
                    </>
                  )}
                </>
              )}
            </p>
            <FirewallModeSwitch state={current} />
          </>
        )}
      </Part>
      <Part
        id="firewall-policy-title"
        title="Policy"
        intro={
          <>
            Middlewares run in order on every check and the strictest decision wins. Save stores a new revision; Replay
            shows what the draft would decide over the last stored records. The language is in{" "}
            <span className="font-mono">docs/firewall.md</span>.
          </>
        }
      >
        {current !== undefined && <PolicyEditor state={current} />}
      </Part>
      <Part id="firewall-revisions-title" title="Revisions">
        {revisions.isError && <QueryProblem what="the revisions" error={revisions.error} />}
        {revisions.data !== undefined && current !== undefined && (
          <FirewallRevisions revisions={revisions.data.revisions} current={current.revision} />
        )}
      </Part>
      <Part
        id="firewall-checks-title"
        title="Recent checks"
        intro="Every settled check: what each middleware decided, or the error that decided for it, and the time it took."
      >
        <FirewallChecks />
      </Part>
    </div>
  );
}

/**
 * The overview: every configured daemon as a card with its router link state, pending count and
 * trust policy, each card with its own tRPC client for that daemon.
 */
import type { Metadata } from "next";
import { DaemonCard } from "@/components/daemon-status";
import { consoleEnv } from "@/server/env";
import { DaemonTRPCProvider } from "@/trpc/daemon-trpc";

export const metadata: Metadata = { title: "Overview" };

export default function OverviewPage() {
  const daemons = consoleEnv().daemons.map((daemon) => daemon.name);
  return (
    <div className="space-y-6">
      <header>
        <h1 className="text-2xl font-semibold">Daemons</h1>
        <p className="mt-1 text-ink-muted">The daemons this console manages. Counts refresh every few seconds.</p>
      </header>
      <ul className="grid gap-4 sm:grid-cols-2" aria-label="Daemons">
        {daemons.map((name) => (
          <li key={name} className="flex">
            <DaemonTRPCProvider name={name}>
              <div className="flex flex-1 flex-col">
                <DaemonCard name={name} />
              </div>
            </DaemonTRPCProvider>
          </li>
        ))}
      </ul>
    </div>
  );
}

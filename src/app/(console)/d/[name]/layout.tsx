/**
 * The frame of one daemon's pages: unknown names are a 404; known ones get a tRPC client bound
 * to that daemon's proxy endpoint, a status header and tabs over its sections.
 */
import { notFound } from "next/navigation";
import { DaemonHeader } from "@/components/daemon-status";
import { DaemonTabs } from "@/components/daemon-tabs";
import { findDaemon } from "@/server/env";
import { DaemonTRPCProvider } from "@/trpc/daemon-trpc";

export default async function DaemonLayout({ children, params }: LayoutProps<"/d/[name]">) {
  const { name } = await params;
  if (findDaemon(name) === undefined) notFound();
  return (
    <DaemonTRPCProvider name={name}>
      <div className="space-y-6">
        <DaemonHeader name={name} />
        <DaemonTabs name={name} />
        {children}
      </div>
    </DaemonTRPCProvider>
  );
}

/**
 * A daemon's Overview, its landing page: charts over time and the conversation map. The layout
 * above binds the tRPC client to the daemon; the view polls the owner API's overview.summary.
 */
import type { Metadata } from "next";
import { OverviewView } from "@/components/overview-view";

export async function generateMetadata({ params }: PageProps<"/d/[name]/overview">): Promise<Metadata> {
  const { name } = await params;
  return { title: `${name} · Overview` };
}

export default async function DaemonOverviewPage({ params }: PageProps<"/d/[name]/overview">) {
  const { name } = await params;
  return <OverviewView name={name} />;
}

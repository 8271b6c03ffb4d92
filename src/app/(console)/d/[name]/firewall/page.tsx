/**
 * A daemon's Firewall page. The layout above binds the tRPC client to the daemon; the view shows
 * the policy in force, its mode, the editor with replay, the revisions and the recent checks.
 */
import type { Metadata } from "next";
import { FirewallView } from "@/components/firewall-view";

export async function generateMetadata({ params }: PageProps<"/d/[name]/firewall">): Promise<Metadata> {
  const { name } = await params;
  return { title: `${name} · Firewall` };
}

export default function FirewallPage() {
  return <FirewallView />;
}

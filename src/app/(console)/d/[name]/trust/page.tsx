/**
 * A daemon's trust page. The layout above binds the tRPC client to the daemon; the view shows
 * the policy and the trusted agents, and trusts or untrusts an agent.
 */
import type { Metadata } from "next";
import { TrustView } from "@/components/trust-view";

export async function generateMetadata({ params }: PageProps<"/d/[name]/trust">): Promise<Metadata> {
  const { name } = await params;
  return { title: `${name} · Trust` };
}

export default function TrustPage() {
  return <TrustView />;
}

/**
 * A daemon's held items page. The layout above binds the tRPC client to the daemon; the view
 * polls the items held from untrusted senders and offers to trust each sender.
 */
import type { Metadata } from "next";
import { HoldsView } from "@/components/holds-view";

export async function generateMetadata({ params }: PageProps<"/d/[name]/holds">): Promise<Metadata> {
  const { name } = await params;
  return { title: `${name} · Held` };
}

export default async function HoldsPage({ params }: PageProps<"/d/[name]/holds">) {
  const { name } = await params;
  return <HoldsView name={name} />;
}

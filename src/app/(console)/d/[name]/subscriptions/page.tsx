/**
 * A daemon's webhook subscriptions page. The layout above binds the tRPC client to the daemon;
 * the view polls the subscriptions and offers revoke and resume.
 */
import type { Metadata } from "next";
import { SubscriptionsView } from "@/components/subscriptions-view";

export async function generateMetadata({ params }: PageProps<"/d/[name]/subscriptions">): Promise<Metadata> {
  const { name } = await params;
  return { title: `${name} · Subscriptions` };
}

export default function SubscriptionsPage() {
  return <SubscriptionsView />;
}

/**
 * A daemon's inbox page. The layout above binds the tRPC client to the daemon; the view polls
 * and renders its pending items.
 */
import type { Metadata } from "next";
import { InboxView } from "@/components/inbox-view";

export async function generateMetadata({ params }: PageProps<"/d/[name]/inbox">): Promise<Metadata> {
  const { name } = await params;
  return { title: `${name} · Inbox` };
}

export default function InboxPage() {
  return <InboxView />;
}

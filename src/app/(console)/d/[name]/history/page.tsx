/**
 * A daemon's history page. The layout above binds the tRPC client to the daemon; the view lists
 * the conversations and the records of the one named by `?conversation=`.
 */
import type { Metadata } from "next";
import { HistoryView } from "@/components/history-view";

export async function generateMetadata({ params }: PageProps<"/d/[name]/history">): Promise<Metadata> {
  const { name } = await params;
  return { title: `${name} · History` };
}

export default async function HistoryPage({ params, searchParams }: PageProps<"/d/[name]/history">) {
  const { name } = await params;
  const { conversation } = await searchParams;
  return <HistoryView name={name} selected={typeof conversation === "string" ? conversation : undefined} />;
}

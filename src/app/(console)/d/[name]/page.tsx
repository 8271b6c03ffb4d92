/**
 * A daemon's address without a section, /d/<name>, redirects to its first section (the Overview),
 * so links to a daemon stay valid as sections are added.
 */
import { redirect } from "next/navigation";
import { DAEMON_SECTIONS, daemonSectionHref } from "@/components/daemon-sections";

export default async function DaemonPage({ params }: PageProps<"/d/[name]">) {
  const { name } = await params;
  redirect(daemonSectionHref(name, DAEMON_SECTIONS[0].slug));
}

/**
 * The signed-in console's frame: checks the session, then renders the navigation over the
 * configured daemons beside the page. Only daemon names reach the browser, never URLs or tokens.
 */
import Link from "next/link";
import { BrandMark } from "@/components/brand-mark";
import { ConsoleNav } from "@/components/console-nav";
import { consoleEnv } from "@/server/env";
import { requirePageSession } from "@/server/page-session";
import { QueryProvider } from "@/trpc/query-provider";

export default async function ConsoleLayout({ children }: LayoutProps<"/">) {
  await requirePageSession();
  const daemons = consoleEnv().daemons.map((daemon) => daemon.name);
  return (
    <QueryProvider>
      <div className="min-h-dvh lg:flex">
        <aside className="border-b border-line bg-surface px-3 py-4 lg:sticky lg:top-0 lg:h-dvh lg:w-64 lg:shrink-0 lg:overflow-y-auto lg:border-r lg:border-b-0">
          <Link href="/" className="mb-4 block px-3">
            <BrandMark />
          </Link>
          <ConsoleNav daemons={daemons} />
        </aside>
        <main className="min-w-0 flex-1 px-4 py-6 sm:px-8 lg:py-8">
          <div className="mx-auto max-w-4xl">{children}</div>
        </main>
      </div>
    </QueryProvider>
  );
}

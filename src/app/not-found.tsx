/**
 * The console's 404 page, for unknown paths and for daemon names the console is not configured
 * with.
 */
import Link from "next/link";

export default function NotFound() {
  return (
    <main className="mx-auto flex min-h-dvh max-w-lg flex-col justify-center gap-4 px-6 py-12">
      <h1 className="text-xl font-semibold">Not found</h1>
      <p className="text-ink-muted">This console has no such page or daemon.</p>
      <Link href="/" className="self-start font-medium text-accent hover:text-accent-hover">
        Back to the overview
      </Link>
    </main>
  );
}

/**
 * Where the console sends a browser without a session, and a login link that failed. It says
 * how to get in: the one-time link that `npm start` prints.
 */
import type { Metadata } from "next";
import { BrandMark } from "@/components/brand-mark";

export const metadata: Metadata = { title: "Signed out" };

const REASONS: Readonly<Record<string, { title: string; detail: string }>> = {
  used: {
    title: "This login link has already been used",
    detail: "Each login link works once. Restart the console to print a new one, or use the browser that signed in.",
  },
  invalid: {
    title: "This login link is not valid",
    detail: "The link does not match the one this console printed when it started.",
  },
};

export default async function SignedOutPage({ searchParams }: PageProps<"/signed-out">) {
  const { reason } = await searchParams;
  const problem = typeof reason === "string" ? REASONS[reason] : undefined;
  return (
    <main className="mx-auto flex min-h-dvh max-w-lg flex-col justify-center gap-6 px-6 py-12">
      <BrandMark />
      <section
        aria-labelledby="signed-out-title"
        className="rounded-xl border border-line bg-surface p-6 shadow-sm"
        data-testid="signed-out"
      >
        <h1 id="signed-out-title" className="text-xl font-semibold">
          {problem?.title ?? "You are signed out"}
        </h1>
        {problem !== undefined && <p className="mt-2 text-ink-muted">{problem.detail}</p>}
        <p className="mt-4 text-ink-muted">
          The owner console opens only through the one-time login link that{" "}
          <code className="rounded bg-surface-sunken px-1.5 py-0.5 font-mono text-sm text-ink">npm start</code> prints
          (the <code className="font-mono text-sm text-ink">console</code> address in its ready line, ending in{" "}
          <code className="font-mono text-sm text-ink">/login?token=…</code>). Open that link in this browser to sign
          in. A session lasts 12 hours.
        </p>
      </section>
    </main>
  );
}

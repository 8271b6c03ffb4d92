"use client";
/**
 * Tabs over a daemon's sections (DAEMON_SECTIONS), the current one marked with aria-current;
 * they scroll sideways on narrow screens once a daemon has more sections than fit, with a fade at
 * the right edge that says there is more.
 */
import Link from "next/link";
import { usePathname } from "next/navigation";
import { DAEMON_SECTIONS, daemonSectionHref } from "./daemon-sections";

/** The section tabs of the daemon `name`. */
export function DaemonTabs({ name }: { name: string }) {
  const pathname = usePathname();
  return (
    <nav aria-label={`${name} sections`} className="relative border-b border-line">
      <span
        aria-hidden="true"
        className="pointer-events-none absolute top-0 right-0 bottom-0 w-8 bg-gradient-to-l from-surface-muted sm:hidden"
      />
      <ul className="-mb-px flex gap-4 overflow-x-auto pr-8 sm:pr-0">
        {DAEMON_SECTIONS.map((section) => {
          const href = daemonSectionHref(name, section.slug);
          const current = pathname === href;
          return (
            <li key={section.slug}>
              <Link
                href={href}
                aria-current={current ? "page" : undefined}
                className={`inline-block border-b-2 px-1 pb-2 text-sm font-medium ${
                  current ? "border-accent text-accent-ink" : "border-transparent text-ink-muted hover:text-ink"
                }`}
              >
                {section.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

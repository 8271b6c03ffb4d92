"use client";
/**
 * The console's navigation: the daemons page, then every configured daemon with its sections. The
 * current page is marked with aria-current. A sidebar on wide screens; on narrow ones a short bar
 * of daemon names only (each daemon's pages carry their own section tabs), so it never pushes a
 * page below the fold.
 */
import Link from "next/link";
import type { ReactNode } from "react";
import { usePathname } from "next/navigation";
import { DAEMON_SECTIONS, daemonSectionHref } from "./daemon-sections";

function NavLink({ href, current, children }: { href: string; current: boolean; children: ReactNode }) {
  return (
    <Link
      href={href}
      aria-current={current ? "page" : undefined}
      className={`block rounded-md px-3 py-1.5 text-sm ${
        current ? "bg-accent-soft font-medium text-accent-ink" : "text-ink-muted hover:bg-surface-sunken hover:text-ink"
      }`}
    >
      {children}
    </Link>
  );
}

/** Navigation over the overview and the daemons named in `daemons`. */
export function ConsoleNav({ daemons }: { daemons: readonly string[] }) {
  const pathname = usePathname();
  return (
    <nav aria-label="Console" className="flex flex-wrap gap-x-6 gap-y-3 lg:flex-col">
      <NavLink href="/" current={pathname === "/"}>
        All daemons
      </NavLink>
      <div className="lg:space-y-1">
        <h2 className="px-3 text-xs font-semibold tracking-wide text-ink-faint uppercase">Daemons</h2>
        <ul className="flex flex-wrap gap-x-3 lg:flex-col">
          {daemons.map((name) => (
            <li key={name}>
              <p className="hidden px-3 pt-2 font-mono text-sm font-medium text-ink lg:block">{name}</p>
              <Link
                href={daemonSectionHref(name, DAEMON_SECTIONS[0].slug)}
                aria-current={pathname.startsWith(`/d/${encodeURIComponent(name)}/`) ? "true" : undefined}
                className="block rounded-md px-3 py-1.5 font-mono text-sm text-ink-muted aria-[current]:bg-accent-soft aria-[current]:text-accent-ink lg:hidden"
              >
                {name}
              </Link>
              <ul className="hidden gap-1 lg:ml-2 lg:flex lg:flex-col" aria-label={`${name} sections`}>
                {DAEMON_SECTIONS.map((section) => {
                  const href = daemonSectionHref(name, section.slug);
                  return (
                    <li key={section.slug}>
                      <NavLink href={href} current={pathname === href}>
                        {section.label}
                      </NavLink>
                    </li>
                  );
                })}
              </ul>
            </li>
          ))}
        </ul>
      </div>
    </nav>
  );
}

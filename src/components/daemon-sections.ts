/**
 * The sections each daemon has in the console, in navigation order. A new owner screen (holds,
 * trust, firewall, history, subscriptions) adds a route under /d/[name]/ and one entry here.
 */

export interface DaemonSection {
  readonly slug: string;
  readonly label: string;
}

/** Every daemon section, first one is the daemon's landing page. */
export const DAEMON_SECTIONS: readonly [DaemonSection, ...DaemonSection[]] = [
  { slug: "overview", label: "Overview" },
  { slug: "inbox", label: "Inbox" },
  { slug: "holds", label: "Held" },
  { slug: "trust", label: "Trust" },
  { slug: "firewall", label: "Firewall" },
  { slug: "history", label: "History" },
  { slug: "subscriptions", label: "Subscriptions" },
];

/** The console path of a daemon's section. */
export function daemonSectionHref(name: string, slug: string): `/d/${string}` {
  return `/d/${encodeURIComponent(name)}/${slug}`;
}

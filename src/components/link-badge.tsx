/**
 * A daemon's router link state as a coloured badge. The states are the daemon's LinkState
 * values; anything else is shown as it comes.
 */

const STATES: Readonly<Record<string, { label: string; tone: string }>> = {
  ready: { label: "Connected", tone: "bg-ok-soft text-ok" },
  connecting: { label: "Connecting", tone: "bg-warn-soft text-warn" },
  offline: { label: "Offline", tone: "bg-warn-soft text-warn" },
  "not-registered": { label: "Not registered", tone: "bg-danger-soft text-danger" },
  "version-mismatch": { label: "Version mismatch", tone: "bg-danger-soft text-danger" },
  "router-untrusted": { label: "Router untrusted", tone: "bg-danger-soft text-danger" },
};

/** The badge for a link state such as "ready" or "offline". */
export function LinkBadge({ state }: { state: string }) {
  const known = STATES[state];
  return (
    <span
      className={`inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium ${known?.tone ?? "bg-surface-sunken text-ink-muted"}`}
      data-testid="link-state"
      data-state={state}
    >
      <span aria-hidden="true" className="size-1.5 rounded-full bg-current" />
      <span>
        <span className="sr-only">Router link: </span>
        {known?.label ?? state}
      </span>
    </span>
  );
}

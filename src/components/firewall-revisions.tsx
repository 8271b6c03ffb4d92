"use client";
/**
 * The policy's stored revisions, newest first (`firewall.revisions`): when each was set, by whom
 * (the owner, or a policy file at start), and its mode. The one in force is marked.
 */
import type { PolicyRevision } from "@/trpc/owner-api";
import { MODES } from "./firewall-words";
import { Timestamp } from "./time";

/** Who set a revision, in words: the owner, or the policy file given at start. */
export function authorOf(author: string): string {
  return author.startsWith("file:") ? `policy file ${author.slice("file:".length)}` : author;
}

/** The revisions table; `current` is the revision in force. */
export function FirewallRevisions({ revisions, current }: { revisions: readonly PolicyRevision[]; current: number }) {
  if (revisions.length === 0) {
    return (
      <p
        className="rounded-xl border border-dashed border-line-strong bg-surface px-4 py-6 text-center text-ink-muted"
        data-testid="revisions-empty"
      >
        No policy has been set: the firewall is off.
      </p>
    );
  }
  return (
    <div className="overflow-x-auto rounded-xl border border-line bg-surface shadow-sm">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Policy revisions, newest first</caption>
        <thead>
          <tr className="border-b border-line text-xs text-ink-faint">
            <th scope="col" className="px-4 py-2 font-medium">
              Revision
            </th>
            <th scope="col" className="px-4 py-2 font-medium">
              Set
            </th>
            <th scope="col" className="px-4 py-2 font-medium">
              By
            </th>
            <th scope="col" className="px-4 py-2 font-medium">
              Mode
            </th>
          </tr>
        </thead>
        <tbody>
          {revisions.map((revision) => (
            <tr
              key={revision.revision}
              className="border-b border-line last:border-0"
              data-testid="revision"
              data-revision={revision.revision}
              data-mode={revision.mode}
              aria-current={revision.revision === current ? "true" : undefined}
            >
              <td className="px-4 py-2 font-mono tabular-nums">
                {revision.revision}
                {revision.revision === current && (
                  <span className="ml-2 rounded-full bg-accent-soft px-2 py-0.5 font-sans text-xs font-medium text-accent-ink">
                    in force
                  </span>
                )}
              </td>
              <td className="px-4 py-2 text-ink-muted">
                <Timestamp ms={revision.createdAt} />
              </td>
              <td className="px-4 py-2 break-words" data-testid="revision-author">
                {authorOf(revision.author)}
              </td>
              <td className="px-4 py-2" data-testid="revision-mode">
                {MODES[revision.mode].label}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

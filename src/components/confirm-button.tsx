"use client";
/**
 * A destructive action that asks once before it acts (Discard, Revoke): the first press shows
 * what will happen beside "Yes, <verb>" and "Cancel"; only the second acts. Neither discard nor
 * revoke can be undone, so the question says so.
 */
import { useState } from "react";

export interface ConfirmButtonProps {
  readonly verb: string;
  /** The button's accessible name, e.g. "Discard message from agent:alice". */
  readonly label: string;
  /** What the action does, asked as a question ("Discard this message? It cannot be undone."). */
  readonly question: string;
  readonly busyText: string;
  readonly busy: boolean;
  readonly disabled: boolean;
  readonly className: string;
  readonly onConfirm: () => void;
}

export function ConfirmButton({
  verb,
  label,
  question,
  busyText,
  busy,
  disabled,
  className,
  onConfirm,
}: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  if (busy) {
    return (
      <button type="button" disabled aria-label={label} className={className}>
        {busyText}
      </button>
    );
  }
  if (!asking) {
    return (
      <button
        type="button"
        onClick={() => setAsking(true)}
        disabled={disabled}
        aria-label={label}
        className={className}
      >
        {verb}
      </button>
    );
  }
  return (
    <span role="group" aria-label={`${label}: confirm`} className="flex flex-wrap items-center gap-2 text-sm">
      <span className="text-ink-muted" data-testid="confirm-question">
        {question}
      </span>
      <button
        type="button"
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
        aria-label={`Yes, ${label.charAt(0).toLowerCase()}${label.slice(1)}`}
        className="rounded-md bg-danger px-3 py-1.5 text-sm font-medium text-white hover:bg-danger-hover"
      >
        Yes, {verb.toLowerCase()}
      </button>
      <button
        type="button"
        onClick={() => setAsking(false)}
        className="rounded-md border border-line-strong bg-surface px-3 py-1.5 text-sm font-medium text-ink"
      >
        Cancel
      </button>
    </span>
  );
}

"use client";
/**
 * The policy editor (SPEC §10): the draft as JSON, starting from the policy in force. Saving
 * stores it as a new revision; a refusal keeps the revision in force and shows each field the
 * daemon named at its line. Replay runs the draft over the last stored records without storing
 * anything. A draft that is not JSON is refused here, with its line, before any call.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useRef, useState } from "react";
import { useTRPC } from "@/trpc/daemon-trpc";
import type { FirewallState } from "@/trpc/owner-api";
import { formatPolicy, placeIssues, policyIssuesOf, readDraft, type PlacedIssue } from "./policy-draft";
import { PolicyIssues } from "./policy-issues";
import { PolicyTextArea, type PolicyTextAreaHandle } from "./policy-text-area";
import { ReplayReport } from "./replay-report";

type Purpose = "save" | "replay";

interface Refusal {
  readonly purpose: Purpose;
  /** The draft as it was refused; the issues' lines are its lines. */
  readonly text: string;
  readonly issues: readonly PlacedIssue[];
  /** The revision in force when it was refused, which the refusal left unchanged. */
  readonly kept: number;
}

const primary =
  "rounded-md bg-accent px-3 py-1.5 text-sm font-medium text-white hover:bg-accent-hover disabled:cursor-wait disabled:opacity-60";
const secondary =
  "rounded-md border border-line-strong bg-surface px-3 py-1.5 text-sm font-medium text-ink hover:bg-surface-sunken disabled:opacity-60";

/** The editor over the policy in force, `state`. */
export function PolicyEditor({ state }: { state: FirewallState }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const editorId = useId();
  const editor = useRef<PolicyTextAreaHandle>(null);
  // undefined: the editor follows the policy in force; otherwise the owner's edits and their base.
  const [draft, setDraft] = useState<{ text: string; base: number } | undefined>();
  const [refusal, setRefusal] = useState<Refusal | undefined>();
  const [limit, setLimit] = useState(50);
  const text = draft?.text ?? formatPolicy(state.policy);

  const refuse = (purpose: Purpose, refused: string, issues: readonly PlacedIssue[]) =>
    setRefusal({ purpose, text: refused, issues, kept: state.revision });
  const failedWith = (purpose: Purpose, refused: string, error: { data?: unknown; message: string }) => {
    const issues = policyIssuesOf(error);
    const read = readDraft(refused);
    if (issues !== undefined && read.ok) refuse(purpose, refused, placeIssues(read.fields, issues));
  };
  const save = useMutation(
    trpc.firewall.set.mutationOptions({
      onSuccess: async () => {
        setDraft(undefined);
        await Promise.all(
          [trpc.firewall.pathKey(), trpc.status.queryKey()].map((queryKey) =>
            queryClient.invalidateQueries({ queryKey }),
          ),
        );
      },
    }),
  );
  const replay = useMutation(trpc.firewall.replay.mutationOptions());

  const submit = (purpose: Purpose) => {
    save.reset();
    replay.reset();
    setRefusal(undefined);
    const read = readDraft(text);
    if (!read.ok) {
      refuse(purpose, text, [read.problem]);
      return;
    }
    const submitted = text;
    if (purpose === "save")
      save.mutate({ policy: read.document }, { onError: (error) => failedWith("save", submitted, error) });
    else
      replay.mutate({ policy: read.document, limit }, { onError: (error) => failedWith("replay", submitted, error) });
  };

  const marks = new Map<number, string[]>();
  if (refusal !== undefined && refusal.text === text)
    for (const issue of refusal.issues) marks.set(issue.line, [...(marks.get(issue.line) ?? []), issue.message]);
  const otherError = refusal === undefined ? (save.error ?? replay.error ?? undefined) : undefined;
  const busy = save.isPending || replay.isPending;

  return (
    <div className="space-y-4">
      <div className="space-y-2">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <label htmlFor={editorId} className="text-sm font-medium text-ink">
            Policy draft (JSON)
          </label>
          <span className="text-xs text-ink-muted" data-testid="draft-base">
            {draft === undefined
              ? `The policy in force, revision ${state.revision}`
              : `Edited, from revision ${draft.base}`}
          </span>
        </div>
        {draft !== undefined && draft.base !== state.revision && (
          <p role="status" className="rounded-md bg-warn-soft px-3 py-2 text-sm text-ink" data-testid="draft-stale">
            Revision {state.revision} is now in force; this draft began from revision {draft.base}.{" "}
            <button type="button" className="font-medium underline" onClick={() => setDraft(undefined)}>
              Load revision {state.revision}
            </button>
          </p>
        )}
        <PolicyTextArea
          ref={editor}
          id={editorId}
          value={text}
          onChange={(value) => setDraft({ text: value, base: draft?.base ?? state.revision })}
          marks={marks}
          invalid={refusal !== undefined}
          describedBy={refusal === undefined ? undefined : `${editorId}-refusal`}
        />
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <button type="button" className={primary} disabled={busy} onClick={() => submit("save")}>
          {save.isPending ? "Saving…" : "Save as a new revision"}
        </button>
        <button type="button" className={secondary} disabled={busy} onClick={() => submit("replay")}>
          {replay.isPending ? "Replaying…" : "Replay the draft"}
        </button>
        <label className="flex items-center gap-1 text-sm text-ink-muted">
          over the last
          <input
            type="number"
            min={1}
            max={500}
            value={limit}
            onChange={(event) => setLimit(Math.min(500, Math.max(1, Math.trunc(Number(event.target.value)) || 1)))}
            aria-label="Records to replay"
            className="w-20 rounded-md border border-line-strong bg-surface px-2 py-1 text-sm text-ink tabular-nums"
          />
          records
        </label>
        <button
          type="button"
          className={`${secondary} ml-auto`}
          disabled={draft === undefined || busy}
          onClick={() => {
            setDraft(undefined);
            setRefusal(undefined);
          }}
        >
          Discard the draft
        </button>
      </div>
      {save.isSuccess && (
        <p role="status" className="rounded-md bg-ok-soft px-3 py-2 text-sm text-ok" data-testid="policy-saved">
          Saved as revision {save.data.revision}; it is in force now.
        </p>
      )}
      {refusal !== undefined && (
        <div
          id={`${editorId}-refusal`}
          role="alert"
          className="space-y-3 rounded-md border border-danger/30 bg-surface px-3 py-3"
          data-testid="policy-refused"
        >
          <p className="text-sm font-medium text-danger">
            {refusal.issues[0]?.path === "(json)"
              ? "The draft is not JSON; nothing was sent."
              : refusal.purpose === "save"
                ? `The daemon refused the draft: revision ${refusal.kept} stays in force, unchanged.`
                : "The daemon cannot replay the draft: it is not a valid policy."}
            {refusal.text !== text && " (You have edited the draft since.)"}
          </p>
          <PolicyIssues
            text={refusal.text}
            issues={refusal.issues}
            onShow={(line) => editor.current?.selectLine(line)}
          />
        </div>
      )}
      {otherError !== undefined && otherError !== null && (
        <p
          role="alert"
          className="rounded-md bg-danger-soft px-3 py-2 text-sm text-danger"
          data-testid="policy-problem"
        >
          Could not {save.isError ? "save" : "replay"} the draft: {otherError.message}
        </p>
      )}
      {replay.data !== undefined && <ReplayReport result={replay.data} />}
    </div>
  );
}

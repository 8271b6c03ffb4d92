"use client";
/**
 * The firewall's mode, off / guidance / enforce (SPEC §10). Choosing one stores a new revision of
 * the policy in force with only its mode changed; the owner's draft in the editor is untouched.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/trpc/daemon-trpc";
import type { FirewallMode, FirewallState } from "@/trpc/owner-api";
import { describeRefusal } from "./api-refusal";
import { MODES } from "./firewall-words";

const ORDER: readonly FirewallMode[] = ["off", "guidance", "enforce"];

/** Three buttons over the modes; the current one is pressed. */
export function FirewallModeSwitch({ state }: { state: FirewallState }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const setMode = useMutation(
    trpc.firewall.set.mutationOptions({
      onSuccess: () =>
        Promise.all(
          [trpc.firewall.pathKey(), trpc.status.queryKey()].map((queryKey) =>
            queryClient.invalidateQueries({ queryKey }),
          ),
        ),
    }),
  );
  const [asked, setAsked] = useState<FirewallMode | undefined>();
  const current = state.policy.mode;
  return (
    <div className="space-y-3">
      <div role="group" aria-label="Firewall mode" className="grid gap-2 sm:grid-cols-3">
        {ORDER.map((mode) => {
          const pressed = mode === current;
          return (
            <button
              key={mode}
              type="button"
              aria-pressed={pressed}
              disabled={setMode.isPending}
              onClick={() => {
                if (pressed) return;
                setAsked(mode);
                setMode.mutate({ policy: { ...state.policy, mode } });
              }}
              data-testid={`mode-${mode}`}
              className={`rounded-lg border px-3 py-2 text-left disabled:cursor-wait ${
                pressed
                  ? "border-accent bg-accent-soft ring-1 ring-accent"
                  : "border-line-strong bg-surface hover:border-accent hover:bg-surface-sunken"
              }`}
            >
              <span className={`block text-sm font-semibold ${pressed ? "text-accent-ink" : "text-ink"}`}>
                {MODES[mode].label}
                {pressed && <span className="sr-only"> (current)</span>}
              </span>
              <span className="mt-0.5 block text-xs text-ink-muted">{MODES[mode].meaning}</span>
            </button>
          );
        })}
      </div>
      {setMode.isPending && <p className="text-sm text-ink-muted">Setting the mode…</p>}
      {setMode.isSuccess && asked !== undefined && (
        <p role="status" className="text-sm text-ok" data-testid="mode-result">
          Mode set to {MODES[asked].label.toLowerCase()}: revision {setMode.data.revision}.
        </p>
      )}
      {setMode.isError && (
        <p role="alert" className="text-sm text-danger" data-testid="mode-problem">
          Could not change the mode: {describeRefusal(setMode.error.message)}
        </p>
      )}
    </div>
  );
}

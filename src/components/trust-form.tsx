"use client";
/**
 * The owner trusts an agent by name. The name is checked here first (readAgentName) so a typo
 * never reaches the daemon; the daemon's own refusal, if any, is shown as it gives it. Trusting
 * releases the agent's held items into the inbox, and the form says how many.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { useTRPC } from "@/trpc/daemon-trpc";
import { readAgentName } from "./agent-name";
import { describeRefusal } from "./api-refusal";

/** A one-field form that calls `trust.add`. */
export function TrustForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const inputId = useId();
  const [value, setValue] = useState("");
  const [problem, setProblem] = useState<string | undefined>();
  const add = useMutation(
    trpc.trust.add.mutationOptions({
      onSuccess: () => {
        setValue("");
        return Promise.all(
          [trpc.holds.pathKey(), trpc.trust.pathKey(), trpc.inbox.pathKey(), trpc.status.queryKey()].map((queryKey) =>
            queryClient.invalidateQueries({ queryKey }),
          ),
        );
      },
    }),
  );
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const read = readAgentName(value);
    if (!read.ok) {
      add.reset();
      setProblem(read.reason);
      return;
    }
    setProblem(undefined);
    add.mutate({ name: read.name });
  };
  const message = problem ?? (add.isError ? describeRefusal(add.error.message) : undefined);
  return (
    <form onSubmit={submit} noValidate className="space-y-2" aria-label="Trust an agent">
      <label htmlFor={inputId} className="block text-sm font-medium text-ink">
        Trust an agent
      </label>
      <div className="flex flex-wrap gap-2">
        <input
          id={inputId}
          name="agent"
          value={value}
          onChange={(event) => {
            setValue(event.target.value);
            // A result line belongs to the name it answered; typing the next one clears it.
            if (add.isSuccess || add.isError) add.reset();
            setProblem(undefined);
          }}
          placeholder="agent name, e.g. carol"
          autoComplete="off"
          spellCheck={false}
          aria-invalid={message !== undefined}
          aria-describedby={`${inputId}-hint`}
          className="min-w-0 flex-1 rounded-md border border-line-strong bg-surface px-3 py-1.5 font-mono text-sm text-ink placeholder:font-sans placeholder:text-ink-faint aria-invalid:border-danger"
        />
        <button
          type="submit"
          disabled={add.isPending}
          className="rounded-md bg-accent px-3 py-1.5 text-sm font-medium text-white hover:bg-accent-hover disabled:cursor-wait disabled:opacity-60"
        >
          {add.isPending ? "Trusting…" : "Trust"}
        </button>
      </div>
      <p id={`${inputId}-hint`} className="text-xs text-ink-muted">
        3 to 32 of a-z, 0-9, _ and -. Trusting an agent releases its held items into the inbox, in their original order.
      </p>
      {message !== undefined && (
        <p role="alert" className="text-sm text-danger" data-testid="trust-form-error">
          {problem === undefined ? `The daemon refused: ${message}` : message}
        </p>
      )}
      {add.isSuccess && (
        <p role="status" className="text-sm text-ok" data-testid="trust-form-result">
          Trusted {add.variables.name}; {add.data.released} held {add.data.released === 1 ? "item" : "items"} released.
        </p>
      )}
      {add.isSuccess && add.data.registered === false && (
        <p role="status" className="text-sm text-warn" data-testid="trust-form-unregistered">
          No agent named {add.variables.name} is registered at the router yet: check the spelling. The trust applies if
          an agent registers under that name.
        </p>
      )}
    </form>
  );
}

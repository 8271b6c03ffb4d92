/**
 * The firewall's closed vocabularies in the owner's words (SPEC §10, docs/firewall.md): modes,
 * decisions, check outcomes, hold sources and reply expectations, each with its badge tone, and
 * latencies as the audit records them (microseconds).
 */
import type { CheckOutcome, CheckedGuidance, FirewallDecision, FirewallMode, HoldSource } from "@/trpc/owner-api";

type Expectation = Extract<CheckedGuidance["instructions"][number], { expectation: string }>["expectation"];

export const MODES: Readonly<Record<FirewallMode, { label: string; meaning: string }>> = {
  off: { label: "Off", meaning: "Nothing is checked." },
  guidance: {
    label: "Guidance",
    meaning: "Shadow mode: every check runs and is recorded, and the agent gets guidance; nothing is held or refused.",
  },
  enforce: {
    label: "Enforce",
    meaning: "Decisions take effect: held items wait here for you, refused sends fail with the rule's feedback.",
  },
};

export const DECISIONS: Readonly<Record<FirewallDecision, { label: string; tone: string }>> = {
  allow: { label: "Allow", tone: "bg-ok-soft text-ok" },
  hold: { label: "Hold", tone: "bg-warn-soft text-warn" },
  refuse: { label: "Refuse", tone: "bg-danger-soft text-danger" },
};

export const OUTCOMES: Readonly<Record<CheckOutcome, string>> = {
  admitted: "admitted to the inbox",
  held: "held for the owner",
  sent: "sent",
  refused: "refused to the agent",
};

export const HOLD_SOURCES: Readonly<Record<HoldSource, { label: string; meaning: string }>> = {
  trust: { label: "Trust", meaning: "held because its sender is not trusted" },
  firewall: { label: "Firewall", meaning: "held by a firewall rule" },
};

export const EXPECTATIONS: Readonly<Record<Expectation, string>> = {
  required: "reply expected",
  permitted: "reply permitted",
  wait: "wait before replying",
  none: "no reply expected",
};

/** A latency in microseconds, as "412 µs" or "2.41 ms". */
export function formatLatency(us: number): string {
  if (us < 1000) return `${Math.round(us)} µs`;
  if (us < 100_000) return `${(us / 1000).toFixed(2)} ms`;
  return `${Math.round(us / 1000)} ms`;
}

/** A probability as a percentage: 0.55 → "55%". */
export function formatProbability(p: number): string {
  return `${Math.round(p * 100)}%`;
}

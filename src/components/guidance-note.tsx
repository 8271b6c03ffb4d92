/**
 * Local guidance the owner's firewall attached to an item (seed 003 "Local guidance"): each rule's
 * instruction with its reply expectation, or the uncertain judgment and its probability; for a
 * collective result, the question's and each answer's. It is the owner's local context, set
 * apart from the peer's words and labelled so, never part of the message.
 */
import type { CheckedGuidance, LocalGuidance } from "@/trpc/owner-api";
import { EXPECTATIONS, formatProbability } from "./firewall-words";

type Instruction = CheckedGuidance["instructions"][number];

/** The checks of a guidance, each with what it was about. */
export function guidanceChecks(guidance: LocalGuidance): { label: string; check: CheckedGuidance }[] {
  if ("checkId" in guidance) return [{ label: "This item", check: guidance }];
  return [
    ...(guidance.question === undefined ? [] : [{ label: "The question", check: guidance.question }]),
    ...guidance.answers.map((answer) => ({ label: `Answer from ${answer.member}`, check: answer })),
  ];
}

function Qualifier({ instruction }: { instruction: Instruction }) {
  if ("expectation" in instruction) {
    return (
      <span className="rounded-full bg-accent-soft px-2 py-0.5 text-xs font-medium text-accent-ink">
        {EXPECTATIONS[instruction.expectation]}
      </span>
    );
  }
  return (
    <span className="rounded-full bg-warn-soft px-2 py-0.5 text-xs font-medium text-warn">
      uncertain: {instruction.uncertain.choice} at {formatProbability(instruction.uncertain.probability)}
    </span>
  );
}

const CONTEXTS = {
  inbox: "Told to the agent beside this item.",
  held: "What the agent will be told beside this item if you release it.",
  check: "What the agent was told with this item or send.",
} as const;

/** The firewall's guidance for an item, or nothing when it carries no instruction. */
export function GuidanceNote({
  guidance,
  context = "inbox",
}: {
  guidance: LocalGuidance;
  context?: keyof typeof CONTEXTS;
}) {
  const checks = guidanceChecks(guidance).filter(({ check }) => check.instructions.length > 0);
  if (checks.length === 0) return null;
  return (
    <aside
      className="rounded-md border border-dashed border-line-strong bg-surface-muted px-3 py-2 text-sm"
      aria-label="Local firewall guidance"
      data-testid="guidance"
    >
      <p className="text-xs font-medium tracking-wide text-ink-muted uppercase">Your firewall&rsquo;s guidance</p>
      <p className="text-xs text-ink-faint">
        {CONTEXTS[context]} Local to this daemon; never part of the peer&rsquo;s message.
      </p>
      <ul className="mt-2 space-y-2">
        {checks.map(({ label, check }) => (
          <li key={check.checkId} data-testid="guidance-check" data-check-id={check.checkId}>
            {checks.length > 1 || label !== "This item" ? (
              <p className="text-xs font-medium text-ink-muted" data-testid="guidance-about">
                {label}
              </p>
            ) : null}
            <ul className="space-y-1">
              {check.instructions.map((instruction) => (
                <li
                  key={`${instruction.middlewareId}/${instruction.ruleId}`}
                  className="flex flex-wrap items-baseline gap-x-2 gap-y-1"
                  data-testid="guidance-instruction"
                  data-kind={"expectation" in instruction ? "expectation" : "uncertain"}
                  data-rule={`${instruction.middlewareId}/${instruction.ruleId}`}
                >
                  <span className="text-ink">{instruction.instruction}</span>
                  <Qualifier instruction={instruction} />
                  <span className="font-mono text-xs text-ink-faint">
                    {instruction.middlewareId}/{instruction.ruleId}
                  </span>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </aside>
  );
}

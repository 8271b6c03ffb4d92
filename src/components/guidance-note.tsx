/**
 * Local guidance the firewall attached to an item (seed 003 "Local guidance"): each rule's
 * instruction with its expectation, or the uncertain choice and its probability.
 */
import type { LocalGuidance } from "@/trpc/owner-api";

type Checked = Extract<LocalGuidance, { checkId: string }>;
type Instruction = Checked["instructions"][number];

function checksOf(guidance: LocalGuidance): { label: string; check: Checked }[] {
  if ("checkId" in guidance) return [{ label: "Message", check: guidance }];
  return [
    ...(guidance.question === undefined ? [] : [{ label: "Question", check: guidance.question }]),
    ...guidance.answers.map((answer) => ({ label: `Answer from ${answer.member}`, check: answer })),
  ];
}

function qualifier(instruction: Instruction): string {
  if ("expectation" in instruction) return `reply ${instruction.expectation}`;
  return `${instruction.uncertain.choice}, p=${instruction.uncertain.probability.toFixed(2)}`;
}

/** Firewall guidance for an inbox item, if it carries any instructions. */
export function GuidanceNote({ guidance }: { guidance: LocalGuidance }) {
  const checks = checksOf(guidance).filter(({ check }) => check.instructions.length > 0);
  if (checks.length === 0) return null;
  return (
    <aside className="rounded-md border border-warn/30 bg-warn-soft px-3 py-2 text-sm" aria-label="Firewall guidance">
      <p className="font-medium text-warn">Firewall guidance</p>
      <ul className="mt-1 space-y-1">
        {checks.flatMap(({ label, check }) =>
          check.instructions.map((instruction, index) => (
            <li key={`${check.checkId}-${index}`} className="text-ink">
              <span className="text-ink-muted">{label}:</span> {instruction.instruction}{" "}
              <span className="text-ink-faint">({qualifier(instruction)})</span>
            </li>
          )),
        )}
      </ul>
    </aside>
  );
}

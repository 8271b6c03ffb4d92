/**
 * How a delivered item's certified content and a collective result read as plain text, for host
 * adapters that show items to a model (`@social-harness/client/item-text`). Pure: a replayed
 * delivery reads the same. Each adapter adds its own header and answer hints around these lines.
 */
import type { Content, InboundItem } from "./types.js";

type CollectiveResultItem = Extract<InboundItem, { kind: "collectiveResult" }>;

/** Text parts verbatim and data parts as JSON, one per line; the collective marker is not shown. */
export function contentText(content: Content): string {
  return content
    .flatMap((part) => (part.type === "text" ? [part.text] : part.type === "data" ? [JSON.stringify(part.value)] : []))
    .join("\n");
}

/** A collective result: its opening line, the question (or that it was withheld) and one line per member. */
export function collectiveResultLines(item: CollectiveResultItem): string[] {
  const question = typeof item.question === "string" ? item.question : "(withheld by your local firewall)";
  const outcomes = item.outcomes.map(({ member, outcome }) => {
    switch (outcome.kind) {
      case "answered":
        return `- ${member}: answered ${JSON.stringify(outcome.content)}`;
      case "declined":
        return `- ${member}: declined`;
      case "invalid":
        return `- ${member}: answered outside the form (${outcome.reason})`;
      case "no-answer":
        return `- ${member}: no answer`;
      case "withheld":
        return `- ${member}: withheld by your local firewall (${outcome.reason})`;
    }
  });
  return [`Result of your ${item.op} ${item.id} to ${item.to}:`, question, ...outcomes];
}

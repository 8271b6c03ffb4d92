/**
 * A rule's `match` (SPEC §10): every condition present must hold. `from` names senders, `to`
 * conversations (`group:*` any group, `agent:*` any direct conversation), `kinds` item kinds, and
 * `text` a regular expression over the subject's words. Patterns are compiled once per policy.
 */
import type { Match } from "./policy.schema.js";
import type { Subject } from "./subjects.js";

export type Matcher = (subject: Subject) => boolean;

export function compileMatch(match: Match): Matcher {
  const pattern = match.text === undefined ? undefined : new RegExp(match.text.pattern, match.text.flags);
  return (subject) => {
    if (match.from !== undefined && !match.from.includes(subject.sender)) return false;
    if (match.kinds !== undefined && !match.kinds.includes(subject.kind)) return false;
    if (match.to !== undefined) {
      const group = subject.conversation.startsWith("group:");
      const named = match.to.some(
        (to) => to === subject.conversation || (to === "group:*" && group) || (to === "agent:*" && !group),
      );
      if (!named) return false;
    }
    return pattern === undefined || pattern.test(subject.text);
  };
}

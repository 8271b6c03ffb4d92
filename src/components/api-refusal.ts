/**
 * What the console says when a daemon refuses a call. tRPC reports a refused input as the JSON
 * of its zod issues; the owner reads each issue's message and field, not the JSON.
 */

function issueText(issue: unknown): string | undefined {
  if (typeof issue !== "object" || issue === null || !("message" in issue)) return undefined;
  if (typeof issue.message !== "string") return undefined;
  const path = "path" in issue && Array.isArray(issue.path) ? issue.path.map(String).join(".") : "";
  return path === "" ? issue.message : `${path}: ${issue.message}`;
}

/** The readable form of a daemon's error message: its input issues joined, or the message as it came. */
export function describeRefusal(message: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return message;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return message;
  const issues = parsed.map(issueText);
  if (issues.some((text) => text === undefined)) return message;
  return issues.join("; ");
}

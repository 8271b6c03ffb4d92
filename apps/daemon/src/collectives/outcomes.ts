/**
 * Per-member outcomes (seed 003 "Inbound items"): how an answer reads against the request's
 * schema. The same pure function runs at the requester and at every all_gather member, so every
 * side derives the identical result from the same certified answers.
 */
import {
  checkAnswerContent,
  describeFormFailure,
  type AnswerPart,
  type CollectiveMemberOutcome,
  type RequestedSchema,
} from "@social-harness/protocol";

export function outcomeOfAnswer(schema: RequestedSchema, response: AnswerPart["response"]): CollectiveMemberOutcome {
  if (response.action === "decline") return { kind: "declined" };
  const check = checkAnswerContent(schema, response.content);
  return check.ok
    ? { kind: "answered", content: response.content }
    : { kind: "invalid", reason: describeFormFailure(check) };
}

/** setTimeout for any delay: Node caps a single timer at about 24.8 days, deadlines reach 30. */
export function setLongTimeout(callback: () => void, delayMs: number): { clear(): void } {
  const MAX = 2 ** 31 - 1;
  let timer: NodeJS.Timeout;
  const arm = (remaining: number) => {
    timer = setTimeout(
      () => (remaining > MAX ? arm(remaining - MAX) : callback()),
      Math.min(Math.max(0, remaining), MAX),
    );
  };
  arm(delayMs);
  return { clear: () => clearTimeout(timer) };
}

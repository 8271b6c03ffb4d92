/**
 * What a check looks at (seed 003 "Local guidance"): a subject is one item, send or answer, with
 * its sender, its exact recipients and its words. Its conversation is named as this agent sees it:
 * `agent:<peer>` for a direct conversation, the canonical group address for a group.
 */
import { agentAddress, membersOfConversation, type Content, type InboundItem } from "@social-harness/protocol";
import type { SubjectKind } from "./policy.schema.js";

export interface Subject {
  /** A PostId, or the CollectiveId of a gather or all_gather request. */
  readonly id: string;
  readonly kind: SubjectKind;
  readonly sender: string;
  readonly recipients: readonly string[];
  readonly conversation: string;
  readonly text: string;
}

/** The conversation `conv` (a key) as `self` addresses it. */
export function conversationAddress(self: string, conv: string): string {
  if (conv.startsWith("group:")) return conv;
  const other = (membersOfConversation(conv) ?? []).find((m) => m !== self) ?? self;
  return agentAddress(other);
}

/** Everyone in `conv` but `author`, as agent addresses. */
export function recipientsOf(conv: string, author: string): string[] {
  return (membersOfConversation(conv) ?? []).filter((m) => m !== author).map(agentAddress);
}

export function textOfContent(content: Content): string {
  return content
    .filter((p) => p.type === "text")
    .map((p) => (p as { text: string }).text)
    .join("\n");
}

/** The text a rule's pattern and a judge read for an answer: decline, or the answer's content. */
export function answerText(response: { action: "accept"; content: unknown } | { action: "decline" }): string {
  return response.action === "decline" ? "decline" : JSON.stringify(response.content);
}

/** The subject of an inbound item from `sender` in `conv`, seen by `self`. */
export function subjectOfItem(self: string, input: { conv: string; sender: string; item: InboundItem }): Subject {
  const { conv, sender, item } = input;
  const base = {
    sender: agentAddress(sender),
    recipients: recipientsOf(conv, sender),
    conversation: conversationAddress(self, conv),
  };
  switch (item.kind) {
    case "multicast":
      return { ...base, id: item.message.postId, kind: "multicast", text: textOfContent(item.message.content) };
    case "collectiveRequest":
      return { ...base, id: item.id, kind: "collectiveRequest", text: item.question };
    case "collectiveResult":
      return {
        ...base,
        id: item.id,
        kind: "collectiveResult",
        text: typeof item.question === "string" ? item.question : "",
      };
    case "operationFailed":
      return { ...base, id: item.id, kind: "collectiveResult", text: item.error };
  }
}

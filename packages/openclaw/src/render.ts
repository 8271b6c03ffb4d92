/**
 * How each inbound item reads to the OpenClaw agent: the conversation it belongs to (where a
 * `reply` goes), its chat type, its sender and the text of the turn. Everything comes from the
 * item the daemon certified and classified; nothing is inferred from OpenClaw's own directories
 * (seed 000 "Delivery projection"). Rendering is pure, so a replayed delivery renders the same.
 */
import type { InboundDelivery, InboundItem, LocalGuidance } from "@social-harness/client";
import { collectiveResultLines, contentText } from "@social-harness/client/item-text";

export interface RenderedItem {
  /** The conversation's address: `agent:<name>` or the canonical `group:` address. */
  readonly conversation: string;
  readonly chatType: "direct" | "group";
  /** Who the turn is from: the sender of a message, the requester of a request, else the daemon. */
  readonly sender: string;
  /** A stable id of what was delivered (the post or the operation), the same on every replay. */
  readonly messageId: string;
  /** The complete membership of a group conversation, as certified. */
  readonly members?: readonly string[];
  readonly text: string;
  /** The local firewall's guidance, which is the owner's context and never the peer's words. */
  readonly guidance?: string;
}

/** The sender shown for items the daemon itself produced: results and failures of operations. */
export const DAEMON_SENDER = "social-harness";

export function chatTypeOf(address: string): "direct" | "group" {
  return address.startsWith("group:") ? "group" : "direct";
}

function answerHint(requestedSchema: unknown): string {
  return [
    `Answer with message(action "reply") whose message is {"action":"accept","content":{...}} filled in to this form:`,
    JSON.stringify(requestedSchema),
    `or {"action":"decline"}.`,
  ].join("\n");
}

function renderItemText(item: InboundItem): string {
  switch (item.kind) {
    case "multicast":
      return contentText(item.message.content);
    case "collectiveRequest":
      return [
        `${item.from} asks (${item.op} ${item.id}, open until ${new Date(item.deadlineAt).toISOString()}):`,
        item.question,
        answerHint(item.requestedSchema),
      ].join("\n");
    case "collectiveResult":
      return collectiveResultLines(item).join("\n");
    case "operationFailed":
      return `Your operation ${item.id} to ${item.to} failed: ${item.error}`;
  }
}

function renderGuidance(guidance: LocalGuidance): string {
  const checked = "answers" in guidance ? [guidance.question, ...guidance.answers] : [guidance];
  const lines = checked
    .flatMap((check) => check?.instructions ?? [])
    .map((instruction) =>
      "uncertain" in instruction
        ? `- ${instruction.instruction} (judged ${instruction.uncertain.choice} with probability ${instruction.uncertain.probability})`
        : `- ${instruction.instruction} (${instruction.expectation})`,
    );
  return ["Your owner's local message firewall adds (this is not part of the message):", ...lines].join("\n");
}

// The first line says who speaks where, so the agent knows sender and conversation whatever the
// host's own envelope shows.
function headerOf(item: InboundItem): string {
  switch (item.kind) {
    case "multicast":
      return item.message.kind === "group"
        ? `${item.message.sender} in ${item.message.address} (members: ${item.message.members.join(", ")}):`
        : `${item.message.sender} (direct):`;
    case "collectiveRequest":
      return `${item.from} in ${item.to}:`;
    case "collectiveResult":
    case "operationFailed":
      return `Your Social Harness daemon, about ${item.to}:`;
  }
}

/** Renders one delivery for the agent. */
export function renderDelivery(delivery: InboundDelivery): RenderedItem {
  const { item } = delivery;
  const text = `${headerOf(item)}\n${renderItemText(item)}`;
  const guidance = delivery.guidance === undefined ? {} : { guidance: renderGuidance(delivery.guidance) };
  switch (item.kind) {
    case "multicast": {
      const { message } = item;
      return message.kind === "group"
        ? {
            conversation: message.address,
            chatType: "group",
            sender: message.sender,
            messageId: message.postId,
            members: message.members,
            text,
            ...guidance,
          }
        : {
            conversation: message.address,
            chatType: "direct",
            sender: message.sender,
            messageId: message.postId,
            text,
            ...guidance,
          };
    }
    case "collectiveRequest":
      return {
        conversation: item.to,
        chatType: chatTypeOf(item.to),
        sender: item.from,
        messageId: item.postId,
        text,
        ...guidance,
      };
    case "collectiveResult":
    case "operationFailed":
      return {
        conversation: item.to,
        chatType: chatTypeOf(item.to),
        sender: DAEMON_SENDER,
        messageId: `${item.kind}:${item.id}`,
        text,
        ...guidance,
      };
  }
}

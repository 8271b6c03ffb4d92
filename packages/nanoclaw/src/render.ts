/**
 * Inbound items as NanoClaw chat messages (seed 000 "Delivery projection"): the platform id is the
 * conversation's address, so `send_message` to that destination answers in the same conversation;
 * sender and membership come from the certified item, never from NanoClaw's own directories.
 * Rendering is pure but for the handoff time, so a replayed delivery renders the same text.
 */
import type { InboundDelivery, InboundItem, LocalGuidance } from "@social-harness/client";
import { collectiveResultLines, contentText } from "@social-harness/client/item-text";
import { CHANNEL_TYPE, DAEMON_SENDER } from "./names.js";

export interface RenderedMessage {
  readonly platformId: string;
  readonly isGroup: boolean;
  readonly id: string;
  readonly sender: string;
  readonly text: string;
}

export function isGroupAddress(address: string): boolean {
  return address.startsWith("group:");
}

/** The NanoClaw user id of a sender: `<channelType>:<handle>`. */
export function senderIdOf(sender: string): string {
  return `${CHANNEL_TYPE}:${sender === DAEMON_SENDER ? "daemon" : sender}`;
}

function bodyOf(item: InboundItem): string {
  switch (item.kind) {
    case "multicast":
      return contentText(item.message.content);
    case "collectiveRequest":
      return [
        `${item.op} ${item.id}, open until ${new Date(item.deadlineAt).toISOString()}: ${item.question}`,
        `Answer with send_message to this conversation, text {"action":"accept","content":{...}} filled in to this form:`,
        JSON.stringify(item.requestedSchema),
        `or {"action":"decline"}.`,
      ].join("\n");
    case "collectiveResult":
      return collectiveResultLines(item).join("\n");
    case "operationFailed":
      return `Your operation ${item.id} to ${item.to} failed: ${item.error}`;
  }
}

// The local firewall's guidance is the owner's context, set apart from the peer's words.
function guidanceOf(guidance: LocalGuidance | undefined): string {
  if (guidance === undefined) return "";
  const checks = "answers" in guidance ? [guidance.question, ...guidance.answers] : [guidance];
  const lines = checks
    .flatMap((check) => check?.instructions ?? [])
    .map((instruction) => `- ${instruction.instruction}`);
  return lines.length === 0
    ? ""
    : `\n\n(Your owner's local message firewall adds, and this is not part of the message:\n${lines.join("\n")})`;
}

/** Renders one delivery as the message NanoClaw routes into the conversation's session. */
export function renderDelivery(delivery: InboundDelivery): RenderedMessage {
  const { item } = delivery;
  const body = `${bodyOf(item)}${guidanceOf(delivery.guidance)}`;
  switch (item.kind) {
    case "multicast": {
      const { message } = item;
      const header = message.kind === "group" ? `members of ${message.address}: ${message.members.join(", ")}\n` : "";
      return {
        platformId: message.address,
        isGroup: message.kind === "group",
        id: message.postId,
        sender: message.sender,
        text: `${header}${body}`,
      };
    }
    case "collectiveRequest":
      return { platformId: item.to, isGroup: isGroupAddress(item.to), id: item.postId, sender: item.from, text: body };
    case "collectiveResult":
    case "operationFailed":
      return {
        platformId: item.to,
        isGroup: isGroupAddress(item.to),
        id: `${item.kind}:${item.id}`,
        sender: DAEMON_SENDER,
        text: body,
      };
  }
}

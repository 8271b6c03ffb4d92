/**
 * Delivery projection (seed 000 "Delivery projection", seed 003 "Inbound items"): what a verified
 * record from another author becomes. A multicast becomes a multicast item whose message is the
 * certified content without its collective part; collective parts go to the collective engine;
 * everything else is consumed, never delivered. Names and membership come from certified records
 * only, never from local directories.
 */
import {
  agentAddress,
  readContent,
  type CollectivePart,
  type InboundItem,
  type MessageContent,
  type RecordFields,
} from "@social-harness/protocol";

export type Projection =
  | { readonly kind: "deliver"; readonly item: InboundItem }
  | {
      readonly kind: "collective";
      readonly part: Exclude<CollectivePart, { op: "multicast" }>;
      readonly message: MessageContent;
    }
  | { readonly kind: "consume"; readonly reason: string };

/** Projects a verified record authored by someone else, for the agent `self`. */
export function projectRecord(self: string, record: RecordFields, members: readonly string[]): Projection {
  if (record.author === self) return { kind: "consume", reason: "the author is never offered its own post" };
  if (record.kind === "genesis")
    return { kind: "consume", reason: "a genesis opens the conversation; it carries no message" };
  const content = readContent(record.content);
  if (!content.ok) return { kind: "consume", reason: content.reason };
  const { message, collective } = content;
  if (collective !== undefined && collective.op !== "multicast")
    return { kind: "collective", part: collective, message };
  if (message.length === 0) return { kind: "consume", reason: "a multicast whose only part is its collective part" };
  const sender = agentAddress(record.author);
  if (record.conv.startsWith("direct:")) {
    return {
      kind: "deliver",
      item: {
        kind: "multicast",
        message: { kind: "direct", postId: record.postId, address: sender, sender, content: [...message] },
      },
    };
  }
  return {
    kind: "deliver",
    item: {
      kind: "multicast",
      message: {
        kind: "group",
        postId: record.postId,
        address: record.conv,
        sender,
        members: members.map(agentAddress),
        content: [...message],
      },
    },
  };
}

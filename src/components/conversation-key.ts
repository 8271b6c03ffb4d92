/**
 * The firewall names a conversation as its agent addresses it (`agent:<peer>` for a direct one, the
 * group address for a group); every other page names it by its key (`direct:<a>,<b>`, the group
 * address). This turns a check subject's address into the key, so replay and checks read like
 * Inbox, Held and History.
 */

export interface AddressedSubject {
  readonly sender: string;
  readonly recipients: readonly string[];
  readonly conversation: string;
}

export function conversationKeyOf(subject: AddressedSubject): string {
  if (!subject.conversation.startsWith("agent:")) return subject.conversation;
  const peer = subject.conversation.slice("agent:".length);
  const sender = subject.sender.replace(/^agent:/, "");
  const other = sender === peer ? (subject.recipients[0] ?? "").replace(/^agent:/, "") : sender;
  if (other === "") return subject.conversation;
  return `direct:${[peer, other].sort().join(",")}`;
}

/**
 * The firewall's reading of a send (seed 001 "Stock host projection"): the subject it judges, and
 * its check of that subject, taken before anything of the send exists.
 */
import { agentAddress, othersOf, readContent, type CanonicalAddress } from "@social-harness/protocol";
import type { Capture, OutboundSubject, SendCheck } from "./send-check.js";

/** What the firewall reads of a send; undefined for protocol posts no rule judges (an all_gather close). */
export function subjectOfSend(
  self: string,
  address: CanonicalAddress,
  postId: string,
  content: unknown,
): OutboundSubject | undefined {
  const read = readContent(content);
  if (!read.ok) return undefined;
  const text = read.message
    .filter((p) => p.type === "text")
    .map((p) => (p as { text: string }).text)
    .join("\n");
  // One literal shape for every subject: a spread of a shared base made V8 build a new hidden
  // class for each send.
  const conversation = address.address;
  const recipients = othersOf(self, address).map(agentAddress);
  const part = read.collective;
  if (part === undefined || part.op === "multicast")
    return { conversation, recipients, id: postId, kind: "multicast", text };
  if (part.op === "answer") {
    const words = part.response.action === "decline" ? "decline" : JSON.stringify(part.response.content);
    return { conversation, recipients, id: part.id, kind: "answer", text: words };
  }
  if (part.op === "gather" || part.op === "all_gather")
    return { conversation, recipients, id: part.id, kind: "collectiveRequest", text };
  return undefined;
}

/**
 * The subject of one post to `address` and the firewall's check of it, taken before its
 * conversation is opened; the capture is undefined without a check.
 */
export async function checkSend(
  check: SendCheck | undefined,
  send: { self: string; address: CanonicalAddress; postId: string; content: unknown; convs: readonly string[] },
): Promise<{ subject: OutboundSubject | undefined; capture: Capture | undefined }> {
  const subject = subjectOfSend(send.self, send.address, send.postId, send.content);
  const capture = await captureSend(check, subject, send.convs);
  return { subject, capture };
}

/** The firewall's check of a send, taken before its conversation is opened; undefined without one. */
function captureSend(
  check: SendCheck | undefined,
  subject: OutboundSubject | undefined,
  convs: readonly string[],
): Promise<Capture | undefined> {
  return check === undefined || subject === undefined ? Promise.resolve(undefined) : check.capture(subject, convs);
}

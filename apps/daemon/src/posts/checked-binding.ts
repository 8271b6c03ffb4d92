/**
 * Binding with the firewall's check (seed 001 "Stock host projection"): the send is assessed before
 * its intents exist, the capture is confirmed in the very transaction that binds them, and a stale
 * capture is checked once more; a second stale capture is held (enforce) or recorded and allowed
 * without its advice (guidance). Without a check this is plain durable binding.
 */
import {
  agentAddress,
  encodeCanonical,
  othersOf,
  readContent,
  type CanonicalAddress,
  type CheckedGuidance,
  type Content,
} from "@social-harness/protocol";
import type { Db } from "../db/database.js";
import { bindDurably, type BindOutcome, type IntentRow } from "./intents.store.js";
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
  const base = { conversation: address.address, recipients: othersOf(self, address).map(agentAddress) };
  const part = read.collective;
  if (part === undefined || part.op === "multicast") return { ...base, id: postId, kind: "multicast", text };
  if (part.op === "answer") {
    const words = part.response.action === "decline" ? "decline" : JSON.stringify(part.response.content);
    return { ...base, id: part.id, kind: "answer", text: words };
  }
  if (part.op === "gather" || part.op === "all_gather")
    return { ...base, id: part.id, kind: "collectiveRequest", text };
  return undefined;
}

export type CheckedBind =
  | { readonly outcome: "bound"; readonly intents: IntentRow[]; readonly guidance: CheckedGuidance | undefined }
  | Exclude<BindOutcome, { outcome: "bound" | "stale" }>;

export async function bindChecked(
  db: Db,
  check: SendCheck | undefined,
  input: {
    convs: readonly string[];
    postIds: readonly string[];
    content: Content;
    createdAt: number;
    subject: OutboundSubject | undefined;
    /** A capture the caller already made for the whole operation (a gather's members). */
    capture?: Capture;
  },
): Promise<CheckedBind> {
  const encoded = encodeCanonical(input.content);
  const intents: IntentRow[] = input.convs.map((conv, i) => ({
    postId: input.postIds[i]!,
    conv,
    content: encoded,
    createdAt: input.createdAt,
  }));
  const subject = input.subject;
  let capture =
    input.capture ??
    (check === undefined || subject === undefined ? undefined : await check.capture(subject, input.convs));
  for (let attempt = 0; ; attempt++) {
    const current = capture;
    const force = attempt === 2;
    const bound = await bindDurably(
      db,
      intents,
      current === undefined || check === undefined
        ? undefined
        : (trx) => check.confirm(trx, current, input.postIds, force),
    );
    if (bound.outcome === "bound")
      return { outcome: "bound", intents, guidance: force ? undefined : current?.guidance };
    if (bound.outcome !== "stale") return bound as Exclude<BindOutcome, { outcome: "bound" | "stale" }>;
    // Only a capture can be stale; check once more, then hold or allow the second stale one.
    if (attempt === 0) capture = await check!.capture(subject!, input.convs, current);
    else if (!check!.allowsStale(current!)) return check!.refuseStale(current!);
  }
}

/**
 * What a held item becomes when the owner releases it (trust.add today; holds.release with the
 * firewall). A collective request released before its deadline is delivered and can be answered;
 * one released after its deadline can no longer be answered, so it never reaches the inbox as a
 * request: an operationFailed item in its conversation says what happened instead.
 */
import type { InboundItem } from "@social-harness/protocol";

export const EXPIRED_WHILE_HELD =
  "This request was held for the owner until after its deadline; it can no longer be answered.";

export function releasedItem(item: InboundItem, now: number): InboundItem {
  if (item.kind !== "collectiveRequest" || now <= item.deadlineAt) return item;
  return { kind: "operationFailed", id: item.id, to: item.to, error: EXPIRED_WHILE_HELD };
}

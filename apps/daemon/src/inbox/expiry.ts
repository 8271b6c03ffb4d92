/**
 * A collective request admitted after its deadline can no longer be answered, so it never enters
 * the inbox as a request: an operationFailed item in its conversation says what happened instead.
 * Ingress admits requests only before their deadline; this catches the late ones, such as a
 * request held for the owner and released after it (trust.add, or a firewall hold).
 */
import type { InboundItem } from "@social-harness/protocol";

export const EXPIRED_BEFORE_ADMISSION = "This request was held until after its deadline; it can no longer be answered.";

export function admissibleItem(item: InboundItem, now: number): InboundItem {
  if (item.kind !== "collectiveRequest" || now <= item.deadlineAt) return item;
  return { kind: "operationFailed", id: item.id, to: item.to, error: EXPIRED_BEFORE_ADMISSION };
}

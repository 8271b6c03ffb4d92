/**
 * The answer to the router for a committed batch of pushed records (SPEC §5): each stored or
 * duplicate record is acknowledged, each refused one skipped with its reason, and a gap skipped and
 * asked for again from this daemon's cursor in that conversation.
 */
import type { RecordFrame } from "@social-harness/protocol";
import type { History } from "../history/history.service.js";
import type { Ingress } from "../ingress/ingress.service.js";
import type { RouterLink } from "./router-link.js";

/** Acknowledges, skips or asks again for each record of a committed batch, in batch order. */
export async function acknowledge(
  deps: { readonly link: RouterLink; readonly history: History },
  frames: readonly RecordFrame[],
  outcomes: Awaited<ReturnType<Ingress["receiveAll"]>>,
): Promise<void> {
  const { link } = deps;
  const gaps = new Set<string>();
  for (const [i, outcome] of outcomes.entries()) {
    const { conv, seq } = frames[i]!;
    switch (outcome.kind) {
      case "stored":
      case "duplicate":
        link.send({ t: "ack", conv, seq });
        break;
      case "refused":
        link.send({ t: "skip", conv, seq, reason: outcome.reason });
        break;
      case "gap":
        link.send({ t: "skip", conv, seq, reason: outcome.reason });
        gaps.add(conv);
        break;
    }
  }
  if (gaps.size > 0) await askAgain(deps, gaps);
}

/** Asks the router for each conversation again, from what this daemon holds of it. */
export async function askAgain(
  deps: { readonly link: RouterLink; readonly history: History },
  convs: Iterable<string>,
): Promise<void> {
  const cursors = await deps.history.cursors();
  for (const conv of convs) deps.link.send({ t: "sync", cursors: { [conv]: cursors[conv] ?? 0 } });
}

/**
 * A gather in flight: the sender asks two members one question with a short deadline, one gather at
 * a time (an answer is matched to the one request open in its conversation). Each member's host
 * answers the first time it reads the request. Promises: a gather whose send returned ends in
 * exactly one result or one operationFailed at the requester; a refused one ends in none; no member
 * is offered a request twice, nor a retired request's failure twice.
 */
import type { Message, Pair } from "../ledger.js";
import { messageText, type TrafficContext, type TrafficKind } from "../traffic.js";

const MEMBERS = ["bob", "carol"] as const;
const DEADLINE_SECONDS = 3;
/** How long past its deadline a gather may still end (a requester restarting, a result on its way). */
const GRACE_MS = 3_000;
const FORM = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] };

interface Open {
  readonly id: string;
  readonly deadlineAt: number;
  /** Set when the send ended. */
  message?: Message;
}

function operationOf(message: Message): string | undefined {
  const result = message.result as { operationId?: unknown; id?: unknown } | undefined;
  const id = result?.operationId ?? (message.outcome === "refused" ? result?.id : undefined);
  return typeof id === "string" ? id : undefined;
}

export function gatherKind(sender: string): TrafficKind {
  let open: Open | undefined;
  /** Requests each member's host has answered, by collective id. */
  const answered = new Set<string>();

  const inFlight = (ctx: TrafficContext) => {
    if (open === undefined) return false;
    if (open.message === undefined) return true;
    const id = operationOf(open.message);
    if (id !== undefined && ctx.ledger.seen(sender, `ending:${id}`)) return false;
    return Date.now() < open.deadlineAt + GRACE_MS;
  };

  return {
    name: "gather",
    weight: 1,
    agents: () => MEMBERS.map((name) => ({ name, consumer: "mcp" as const })),
    canStart: (ctx) => !inFlight(ctx),
    compose(id) {
      const text = JSON.stringify({
        gather: messageText(id, "gather", 0),
        deadline: DEADLINE_SECONDS,
        requestedSchema: FORM,
      });
      open = { id, deadlineAt: Date.now() + DEADLINE_SECONDS * 1000 };
      return { to: `group:${MEMBERS.join(",")}`, text };
    },
    sent(message) {
      if (open?.id === message.id) open.message = message;
    },
    identify(recipient, item) {
      switch (item.kind) {
        case "collectiveRequest":
          return `request:${item.id}`;
        case "collectiveResult":
          return `ending:${item.id}`;
        case "operationFailed":
          // At the requester: its operation failed. At a member: a request its restart retired.
          return recipient === sender ? `ending:${item.id}` : `retired:${item.id}`;
        default:
          return undefined;
      }
    },
    intended(message): Pair[] {
      const id = operationOf(message);
      return id === undefined ? [] : [{ recipient: sender, key: `ending:${id}` }];
    },
    async react(recipient, entry, ctx) {
      const { item } = entry;
      if (item.kind !== "collectiveRequest" || answered.has(`${recipient}:${item.id}`)) return;
      answered.add(`${recipient}:${item.id}`);
      const call = await ctx
        .host(recipient)
        .call("send_message", { to: item.to, text: JSON.stringify({ action: "accept", content: { ok: true } }) });
      ctx.ledger.note(`${recipient} answered ${item.id}: ${call.ok ? "sent" : JSON.stringify(call)}`);
    },
    quiescent: (ctx) => !inFlight(ctx),
  };
}

/**
 * Messages the recipient's firewall holds for its owner (issue 10): the recipient daemon starts
 * with `--firewall-policy`, whose rule holds this kind's texts, so none of them may ever reach its
 * inbox, across crashes of the sender, the router and the recipient. Every message that returned
 * or is delivery-pending must be held exactly once (a check that resumes after a crash settles once),
 * an outcome-unknown one at most once, and a refused one never; the trial reads the holds through
 * the recipient's owner API after the last crash.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Message, Pair, Violation } from "../ledger.js";
import { messageText, type TrafficContext, type TrafficKind } from "../traffic.js";
import { identifyMulticast, padding } from "./multicast.js";

const KIND = "firewall-hold";

const POLICY = {
  mode: "enforce",
  middlewares: [
    {
      id: "chaos",
      kind: "rules",
      rules: [
        {
          id: "hold-this-kind",
          direction: "inbound",
          match: { text: { pattern: `^chaos \\S+ ${KIND}\\b` } },
          decision: "hold",
          instruction: "Crash trials: the owner reviews these.",
        },
      ],
    },
  ],
};

interface Hold {
  readonly id: number;
  readonly source: string;
  readonly item: { kind: string; message?: { content?: { type: string; text?: string }[] } };
}

async function holdsOf(ctx: TrafficContext, recipient: string): Promise<Hold[]> {
  const daemon = ctx.daemon(recipient);
  const response = await fetch(`${daemon.trpcUrl}/holds.list`, {
    headers: { authorization: `Bearer ${daemon.ownerToken}` },
  });
  if (!response.ok) throw new Error(`holds.list answered HTTP ${response.status}`);
  const body = (await response.json()) as { result: { data: { holds: Hold[] } } };
  return body.result.data.holds;
}

const idOf = (hold: Hold) => {
  const text = hold.item.message?.content?.find((p) => p.type === "text")?.text ?? "";
  return new RegExp(`^chaos (\\S+) ${KIND}\\b`).exec(text)?.[1];
};

export function firewallHoldKind(recipient = "erin"): TrafficKind {
  let policyFile = "";
  return {
    name: KIND,
    weight: 2,
    async setup(dir) {
      policyFile = path.join(dir, "firewall-policy.json");
      await writeFile(policyFile, JSON.stringify(POLICY));
    },
    agents: () => [{ name: recipient, consumer: "mcp", args: ["--firewall-policy", policyFile] }],
    compose: (id, ctx) => ({ to: `agent:${recipient}`, text: messageText(id, KIND, padding(ctx)) }),
    identify: identifyMulticast,
    // Held for the owner: meant for no inbox.
    intended: () => [],
    expectations: (message: Message) => ({
      mustSee: [],
      mustNotSee: [
        { recipient, key: `msg:${message.id}` },
        { recipient: message.from, key: `msg:${message.id}` },
      ] satisfies Pair[],
    }),
    async check(ctx) {
      const messages = ctx.ledger.messages.filter((m) => m.traffic === KIND);
      const must = messages.filter((m) => m.outcome === "returned" || m.outcome === "delivery-pending");
      // Checks settle in the background: wait until every message that must be held is.
      const deadline = Date.now() + 30_000;
      let holds = await holdsOf(ctx, recipient);
      while (!must.every((m) => holds.some((h) => idOf(h) === m.id)) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        holds = await holdsOf(ctx, recipient);
      }
      const violations: Violation[] = [];
      const count = (id: string) => holds.filter((h) => idOf(h) === id).length;
      for (const message of messages) {
        const held = count(message.id);
        const allowed = message.outcome === "refused" ? 0 : 1;
        if (held > allowed)
          violations.push({ kind: "duplicated", detail: `${message.id} (${message.outcome}) is held ${held} times` });
        if (must.includes(message) && held === 0)
          violations.push({
            kind: "lost",
            detail: `${message.id} (${message.outcome}) was never held at ${recipient}`,
          });
      }
      for (const hold of holds) {
        if (hold.source !== "firewall")
          violations.push({ kind: "other", detail: `hold ${hold.id} at ${recipient} came from ${hold.source}` });
      }
      return violations;
    },
  };
}

/**
 * The `rate` middleware: sliding windows per sender or per conversation, and a loop guard for
 * agents answering each other without end (OpenClaw #37842: A→B→C→A, 398 sends in ten hours).
 * The loop guard counts this agent's replies: sends made within `replySeconds` of an inbound item.
 * In a loop every participant replies to every message, so its reply count climbs past any
 * budget a conversation between people and agents reaches. Windows live in memory and start
 * again with the daemon and with each policy revision.
 */
import { compileMatch } from "./match.js";
import { appliesTo, type RateMiddleware } from "./policy.schema.js";
import type { CompiledMiddleware } from "./rules.middleware.js";
import { strictest, type RuleVerdict } from "./verdicts.js";

class Window {
  private readonly times: number[] = [];
  constructor(private readonly spanMs: number) {}

  /** Records one event at `now`; returns how many fall in the window, this one included. */
  add(now: number): number {
    this.times.push(now);
    while (this.times.length > 0 && this.times[0]! <= now - this.spanMs) this.times.shift();
    return this.times.length;
  }
}

/** When an inbound item last arrived: the loop guard's notion of "a reply". */
export class InboundClock {
  private latest = Number.NEGATIVE_INFINITY;

  /** When an inbound subject was last settled. */
  get last(): number {
    return this.latest;
  }

  /** Admission's note of a settled inbound subject (ingress/admission.ts), its only writer. */
  arrived(at: number): void {
    this.latest = at;
  }
}

export function compileRate(middleware: RateMiddleware, clock: InboundClock): CompiledMiddleware {
  const rules = middleware.rules.map((rule) => ({
    rule,
    matches: compileMatch(rule.match),
    windows: new Map<string, Window>(),
  }));
  return {
    id: middleware.id,
    covers: (direction) => middleware.rules.some((r) => appliesTo(r, direction)),
    run({ direction, subject, now }) {
      const started = process.hrtime.bigint();
      const matched: RuleVerdict[] = [];
      for (const { rule, matches, windows } of rules) {
        if (!appliesTo(rule, direction) || !matches(subject)) continue;
        if (rule.per === "loop" && now - clock.last > (rule.replySeconds ?? 30) * 1000) continue;
        const key = rule.per === "conversation" ? subject.conversation : rule.per === "sender" ? subject.sender : "";
        let window = windows.get(key);
        if (window === undefined) windows.set(key, (window = new Window(rule.windowSeconds * 1000)));
        const count = window.add(now);
        if (count > rule.max) matched.push({ ruleId: rule.id, decision: rule.decision, instruction: rule.instruction });
      }
      return {
        middlewareId: middleware.id,
        kind: "rate",
        decision: strictest(matched.map((m) => m.decision)),
        rules: matched,
        latencyUs: Number((process.hrtime.bigint() - started) / 1000n),
      };
    },
  };
}

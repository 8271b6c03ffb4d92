/**
 * The `rate` middleware: sliding windows per sender or per conversation, and a loop guard for
 * agents answering each other without end (OpenClaw #37842: A→B→C→A, 398 sends in ten hours).
 * The loop guard counts this agent's replies: sends made within `replySeconds` of an inbound item.
 * In a loop every participant replies to every message, so its reply count climbs past any
 * budget a conversation between people and agents reaches. Windows live in memory and start
 * again with the daemon and with each policy revision; their bookkeeping is bounded (a window keeps
 * at most max + 1 times, a rule at most MAX_WINDOWS keys), and a rule past its ceiling is recorded
 * as an error that decides the middleware's `onError`.
 */
import { compileMatch, matchingRules } from "./match.js";
import { appliesTo, type RateMiddleware } from "./policy.schema.js";
import type { CompiledMiddleware } from "./rules.middleware.js";
import { strictest, type RuleVerdict } from "./verdicts.js";

/** The most senders or conversations one rate rule keeps a window for at once. */
export const MAX_WINDOWS = 10_000;

class Window {
  private times: number[] = [];
  private head = 0;
  constructor(
    private readonly spanMs: number,
    private readonly keep: number,
  ) {}

  /** Records one event at `now`; returns how many fall in the window (at most `keep`), this one included. */
  add(now: number): number {
    this.times.push(now);
    while (this.head < this.times.length && this.times[this.head]! <= now - this.spanMs) this.head++;
    if (this.times.length - this.head > this.keep) this.head = this.times.length - this.keep;
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
    return this.times.length - this.head;
  }

  /** True when no event of it is still in the window at `now`. */
  idle(now: number): boolean {
    const last = this.times[this.times.length - 1];
    return last === undefined || last <= now - this.spanMs;
  }
}

/** The window for `key`, or undefined when the rule keeps MAX_WINDOWS busy ones already. */
function windowFor(windows: Map<string, Window>, key: string, now: number, make: () => Window): Window | undefined {
  const found = windows.get(key);
  if (found !== undefined) return found;
  if (windows.size >= MAX_WINDOWS) for (const [k, w] of windows) if (w.idle(now)) windows.delete(k);
  if (windows.size >= MAX_WINDOWS) return undefined;
  const made = make();
  windows.set(key, made);
  return made;
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
    async run({ direction, subject, now }) {
      const started = process.hrtime.bigint();
      const verdicts: RuleVerdict[] = [];
      const { matched, error: matchError } = await matchingRules(rules, direction, subject);
      const errors = matchError === undefined ? [] : [matchError];
      for (const { rule, windows } of matched) {
        if (rule.per === "loop" && now - clock.last > (rule.replySeconds ?? 30) * 1000) continue;
        const key = rule.per === "conversation" ? subject.conversation : rule.per === "sender" ? subject.sender : "";
        const window = windowFor(windows, key, now, () => new Window(rule.windowSeconds * 1000, rule.max + 1));
        if (window === undefined) {
          errors.push(`${rule.id}: ${MAX_WINDOWS} windows are busy; this ${rule.per} is not counted`);
          continue;
        }
        if (window.add(now) > rule.max)
          verdicts.push({ ruleId: rule.id, decision: rule.decision, instruction: rule.instruction });
      }
      const decided = strictest(verdicts.map((m) => m.decision));
      const error = errors.length === 0 ? undefined : errors.join("; ");
      return {
        middlewareId: middleware.id,
        kind: "rate",
        decision: error === undefined ? decided : strictest([decided, middleware.onError ?? "hold"]),
        rules: verdicts,
        ...(error === undefined ? {} : { error }),
        latencyUs: Number((process.hrtime.bigint() - started) / 1000n),
      };
    },
  };
}

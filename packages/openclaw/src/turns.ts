/**
 * What OpenClaw's hooks say about the turns the plugin's dispatches start (seed 000 "Delivery
 * handoff"): whether an agent run of the item's session ended, and whether OpenClaw failed the
 * message tool for a reason of its own, before the plugin's send was reached. An item is
 * acknowledged only once a run of its session has ended with no such failure; a dispatch OpenClaw
 * skipped (its restart recovery owns the turn) waits for that recovered run's end.
 */

/** How the watched turn of one dispatch ended, as a value. */
export type TurnOutcome = { readonly handled: true } | { readonly handled: false; readonly reason: string };

interface Watch {
  ran: boolean;
  hostFailure: string | undefined;
  readonly ownErrors: string[];
  readonly ended: Promise<void>;
  readonly end: () => void;
}

export class Turns {
  private readonly watches = new Map<string, Watch>();
  /** The sessions of the last runs that ended, newest last, for a reason that names them. */
  private readonly recent: string[] = [];

  /** Starts watching the runs of `sessionKey` for one dispatch. */
  begin(sessionKey: string): void {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    this.watches.set(sessionKey, { ran: false, hostFailure: undefined, ownErrors: [], ended, end });
  }

  /**
   * How the watched turn went, once the dispatch has resolved: at once when a run ended during
   * it, else after the next run of the session ends or `waitMs` passes.
   */
  async settle(sessionKey: string, waitMs: number, signal: AbortSignal): Promise<TurnOutcome> {
    const watch = this.watches.get(sessionKey);
    if (watch === undefined) return { handled: false, reason: "the plugin was not watching this session" };
    try {
      if (!watch.ran) {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
        const aborted = new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
        await Promise.race([watch.ended, timeout, aborted]);
        clearTimeout(timer);
      }
      if (!watch.ran) {
        return {
          handled: false,
          reason: `no agent run of ${sessionKey} ended within ${waitMs} ms of OpenClaw's dispatch, which started none (runs that ended lately: ${this.recent.join(", ") || "none"})`,
        };
      }
      if (watch.hostFailure !== undefined) {
        return {
          handled: false,
          reason: `OpenClaw failed the message tool before the plugin could send (${watch.hostFailure})`,
        };
      }
      return { handled: true };
    } finally {
      this.watches.delete(sessionKey);
    }
  }

  /** The plugin's own send refused with `message`: a refusal the model saw, not OpenClaw's failure. */
  ownRefusal(sessionKey: string | null | undefined, message: string): void {
    if (sessionKey != null) this.watches.get(sessionKey)?.ownErrors.push(message);
  }

  /** OpenClaw's `after_tool_call` hook. */
  toolCalled(
    event: { readonly toolName: string; readonly error?: string },
    ctx: { readonly sessionKey?: string },
  ): void {
    if (event.toolName !== "message" || event.error === undefined || ctx.sessionKey === undefined) return;
    const watch = this.watches.get(ctx.sessionKey);
    if (watch === undefined || watch.ownErrors.some((own) => event.error!.includes(own))) return;
    watch.hostFailure ??= event.error;
  }

  /** OpenClaw's `agent_end` hook. */
  agentEnded(ctx: { readonly sessionKey?: string }): void {
    this.recent.push(ctx.sessionKey ?? "(no session)");
    if (this.recent.length > 5) this.recent.shift();
    if (ctx.sessionKey === undefined) return;
    const watch = this.watches.get(ctx.sessionKey);
    if (watch === undefined) return;
    watch.ran = true;
    watch.end();
  }
}

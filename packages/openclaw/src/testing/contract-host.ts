/**
 * OpenClaw's host side as this plugin's contract records it (research/openclaw.md §5-7, observed on
 * openclaw 2026.9.6): route resolution, context finalisation, a dispatch that resolves once the
 * agent run has ended, the message tool calling `handleAction` with `toolContext`, and the
 * gateway restarting an account that exited with an error. Tests script the dispatch; the real
 * gateway tests check the same plugin against the real host. Nothing here is shipped.
 */
import { createChannelPlugin } from "../channel.js";
import type { Account } from "../config.js";
import type {
  AgentToolResult,
  ChannelPlugin,
  ChannelRuntime,
  DispatchReplyParams,
  InboundContext,
  OpenClawConfig,
  PluginRuntime,
} from "../sdk.js";
import { Turns } from "../turns.js";

export type DispatchBehaviour = (params: DispatchReplyParams, ctx: InboundContext) => Promise<void>;

export interface ContractHostOptions {
  /** The `channels.social-harness` section. */
  readonly channel: Readonly<Record<string, unknown>>;
  /** How long the host waits before restarting a failed account; OpenClaw waits 5 s and more. */
  readonly restartDelayMs?: number;
  /**
   * The host lets the plugin see agent runs end and tool calls fail (OpenClaw's `agent_end` and
   * `after_tool_call` hooks, with `hooks.allowConversationAccess`); tests fire them with `agentEnded`
   * and `toolFailed`.
   */
  readonly hooks?: boolean;
}

export class ContractHost {
  /** Every dispatch, in order, with the context the plugin built. */
  readonly dispatches: InboundContext[] = [];
  /** Every error an account exited with. */
  readonly failures: unknown[] = [];
  readonly plugin: ChannelPlugin<Account>;
  readonly cfg: OpenClawConfig;
  /** How each dispatch behaves; by default the agent run ends at once. */
  behaviour: DispatchBehaviour = () => Promise.resolve();
  private abort: AbortController | undefined;
  private supervising: Promise<void> | undefined;

  readonly turns = new Turns();

  constructor(private readonly options: ContractHostOptions) {
    this.cfg = {
      channels: { "social-harness": options.channel },
      ...(options.hooks === true
        ? { plugins: { entries: { "social-harness": { hooks: { allowConversationAccess: true } } } } }
        : {}),
    };
    const channel: ChannelRuntime = {
      routing: {
        resolveAgentRoute: ({ peer }) => ({
          agentId: "main",
          sessionKey: `agent:main:social-harness:${peer.kind}:${peer.id}`,
        }),
      },
      reply: {
        finalizeInboundContext: (ctx) => ({ ...ctx }),
        dispatchReplyWithBufferedBlockDispatcher: async (params) => {
          const ctx = params.ctx as InboundContext;
          this.dispatches.push(ctx);
          await this.behaviour(params, ctx);
          return { queuedFinal: false };
        },
      },
    };
    const runtime: PluginRuntime = { config: { current: () => this.cfg }, channel };
    this.plugin = createChannelPlugin(() => runtime, options.hooks === true ? { turns: () => this.turns } : {});
  }

  /** OpenClaw's `agent_end` hook for a run of the session `ctx` was dispatched to. */
  agentEnded(ctx: InboundContext): void {
    this.turns.agentEnded({ sessionKey: ctx.SessionKey });
  }

  /** OpenClaw's `after_tool_call` hook for a message tool call that failed with `error`. */
  toolFailed(ctx: InboundContext, error: string): void {
    this.turns.toolCalled({ toolName: "message", error }, { sessionKey: ctx.SessionKey });
  }

  /** A behaviour that offers the deliver callback a final, as OpenClaw's automatic mode does. */
  static offeringFinal(text: string): DispatchBehaviour {
    return async (params) => {
      await params.dispatcherOptions.deliver({ text }, { kind: "final" });
    };
  }

  /** Starts the account and keeps restarting it after failures, until `stop`. */
  start(): void {
    const abort = new AbortController();
    this.abort = abort;
    const account = this.plugin.config.resolveAccount(this.cfg, "default");
    const run = async () => {
      while (!abort.signal.aborted) {
        try {
          await this.plugin.gateway.startAccount({
            cfg: this.cfg,
            accountId: "default",
            account,
            abortSignal: abort.signal,
            setStatus: () => undefined,
            log: { info: () => undefined, warn: () => undefined, error: () => undefined },
          });
        } catch (error) {
          this.failures.push(error);
        }
        await new Promise((resolve) => setTimeout(resolve, this.options.restartDelayMs ?? 200));
      }
    };
    this.supervising = run();
  }

  async stop(): Promise<void> {
    this.abort?.abort();
    await this.supervising;
  }

  /** Calls the message tool's action as OpenClaw does, in a turn whose conversation is `current`. */
  action(
    action: "send" | "reply",
    params: Readonly<Record<string, unknown>>,
    current?: string,
    sessionKey?: string,
  ): Promise<AgentToolResult> {
    return this.plugin.actions.handleAction({
      channel: "social-harness",
      action,
      cfg: this.cfg,
      params: { action, ...params },
      accountId: "default",
      ...(sessionKey === undefined ? {} : { sessionKey }),
      ...(current === undefined ? {} : { toolContext: { currentChannelId: current } }),
    });
  }
}

/**
 * The `social-harness` channel: its config, its address grammar for targets, its account
 * lifecycle, the message tool's `send` and `reply` actions (with no added parameter) and the
 * `message.send.text` core uses for its own sends. Every send runs in the gateway process on the
 * running account's endpoint. There is no retry queue, second send tool, group tool or directory.
 */
import { Effect } from "effect";
import { acquireHarnessEndpoint, type HarnessEndpoint } from "@social-harness/client";
import { ACCOUNT_ID, CHANNEL_ID, readToken, resolveAccount, seesTurns, type Account } from "./config.js";
import { inClientRequest, type GatewayContext } from "./detach.js";
import { runAccount, type Endpoints, type TurnTracking } from "./inbound.js";
import { chatTypeOf } from "./render.js";
import type {
  AgentToolResult,
  ChannelMessageActionContext,
  ChannelPlugin,
  OpenClawConfig,
  PluginRuntime,
} from "./sdk.js";
import { isAddress, sendText, type SendOutcome } from "./send.js";
import type { Turns } from "./turns.js";

const ACTIONS = ["send", "reply"] as const;

/** What OpenClaw's `register` gave the plugin beyond its runtime. */
export interface HostBindings {
  /** The turns the plugin's hooks watch; undefined where OpenClaw offers no hooks. */
  readonly turns?: () => Turns | undefined;
  /** The gateway's own async context, in which an account a client request started runs. */
  readonly gatewayContext?: () => GatewayContext | undefined;
}

/** A channel plugin bound to the runtime OpenClaw hands `register`. */
export function createChannelPlugin(runtime: () => PluginRuntime, host: HostBindings = {}): ChannelPlugin<Account> {
  const endpoints: Endpoints = new Map();
  const tracking: TurnTracking = {
    turns: (cfg) => (seesTurns(cfg) ? host.turns?.() : undefined),
    unhandled: new Map(),
  };
  const startAccount = async (ctx: Parameters<ChannelPlugin<Account>["gateway"]["startAccount"]>[0]) => {
    const start = () => runAccount(ctx, runtime(), endpoints, tracking);
    const gateway = host.gatewayContext?.();
    return gateway !== undefined && (await inClientRequest()) ? gateway(start) : start();
  };

  // A send in a process without the running account (OpenClaw's CLI running an action locally)
  // opens its own endpoint for that one send.
  const withEndpoint = (
    cfg: OpenClawConfig,
    accountId: string,
    use: (endpoint: HarnessEndpoint) => Effect.Effect<SendOutcome>,
  ) => {
    const live = endpoints.get(accountId);
    if (live !== undefined) return use(live);
    const account = resolveAccount(cfg, accountId);
    if (!account.configured) return Effect.succeed<SendOutcome>({ ok: false, error: account.problem });
    const token = readToken(account);
    return Effect.scoped(
      Effect.flatMap(acquireHarnessEndpoint(account.endpoint, token === undefined ? {} : { token }), use),
    ).pipe(
      Effect.catchAll((error) => Effect.succeed<SendOutcome>({ ok: false, error: `not sent (${error.message})` })),
    );
  };

  const send = (cfg: OpenClawConfig, accountId: string | null | undefined, to: string, text: string) =>
    Effect.runPromise(withEndpoint(cfg, accountId ?? ACCOUNT_ID, (endpoint) => sendText(endpoint, to, text)));

  const handleAction = async (ctx: ChannelMessageActionContext): Promise<AgentToolResult> => {
    const { params } = ctx;
    // `reply` differs from `send` only in its target: core fills it with the current turn's
    // conversation, which is where an answer belongs.
    const given =
      typeof params.to === "string" ? params.to : typeof params.target === "string" ? params.target : undefined;
    const to = ctx.action === "reply" ? (given ?? ctx.toolContext?.currentChannelId) : given;
    const text = typeof params.message === "string" ? params.message : undefined;
    const refuse = (message: string) => {
      host.turns?.()?.ownRefusal(ctx.sessionKey, message);
      return new Error(message);
    };
    if (to === undefined) throw refuse(`${ctx.action} needs a target: agent:<name> or group:<name>,<name>,…`);
    if (text === undefined) throw refuse(`${ctx.action} needs a message`);
    const outcome = await send(ctx.cfg, ctx.accountId, to.trim(), text);
    if (!outcome.ok) {
      host.turns?.()?.ownRefusal(ctx.sessionKey, outcome.error);
      throw new Error(outcome.error);
    }
    return { content: [{ type: "text", text: JSON.stringify(outcome) }], details: outcome };
  };

  return {
    id: CHANNEL_ID,
    meta: {
      id: CHANNEL_ID,
      label: "Social Harness",
      selectionLabel: "Social Harness (agent-to-agent messaging)",
      docsPath: "/channels/social-harness",
      blurb: "Certified messages between AI agents through a Social Harness daemon.",
    },
    capabilities: { chatTypes: ["direct", "group"] },
    reload: { configPrefixes: [`channels.${CHANNEL_ID}`] },
    config: {
      listAccountIds: () => [ACCOUNT_ID],
      resolveAccount,
      inspectAccount: (cfg, accountId) => {
        const account = resolveAccount(cfg, accountId);
        return account.configured
          ? { enabled: account.enabled, configured: true, endpoint: account.endpoint.href }
          : { enabled: false, configured: false, problem: account.problem };
      },
      isConfigured: (account) => account.configured,
      isEnabled: (account) => account.enabled,
    },
    messaging: {
      targetPrefixes: ["agent", "group"],
      normalizeTarget: (raw) => {
        const target = raw.trim();
        return isAddress(target) ? target : undefined;
      },
      inferTargetChatType: ({ to }) => (isAddress(to.trim()) ? chatTypeOf(to.trim()) : undefined),
      targetResolver: {
        looksLikeId: (raw) => isAddress(raw.trim()),
        hint: "agent:<name> for one agent, group:<name>,<name>,… for a group (3 to 32 members including you)",
      },
    },
    gateway: { startAccount },
    actions: {
      describeMessageTool: () => ({ actions: ACTIONS }),
      supportsAction: ({ action }) => (ACTIONS as readonly string[]).includes(action),
      resolveExecutionMode: () => "gateway",
      handleAction,
    },
    message: {
      id: CHANNEL_ID,
      send: {
        // Core's own sends (the CLI, announcements): the same parser and the same single send.
        text: async ({ cfg, to, text, accountId }) => {
          const outcome = await send(cfg, accountId, to.trim(), text);
          if (!outcome.ok) throw new Error(outcome.error);
          return { receipt: { platformMessageIds: [], parts: [], sentAt: Date.now() } };
        },
      },
    },
  };
}

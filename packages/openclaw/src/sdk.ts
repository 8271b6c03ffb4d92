/**
 * The parts of OpenClaw's plugin SDK this plugin touches, written as structural types from the
 * declarations openclaw@2026.9.6 ships (`plugin-sdk/channel-core`, `channel-contract`,
 * `reply-runtime`). The plugin imports nothing from `openclaw` at run time, so it loads wherever
 * the gateway finds it; the real-gateway tests prove these shapes against the real host.
 */

/** OpenClaw's parsed `openclaw.json`; the plugin reads only its own channel section. */
export type OpenClawConfig = Readonly<Record<string, unknown>>;

export interface ChannelLogSink {
  readonly info?: (message: string) => void;
  readonly warn?: (message: string) => void;
  readonly error?: (message: string) => void;
  readonly debug?: (message: string) => void;
}

export interface AgentRoute {
  readonly agentId: string;
  readonly sessionKey: string;
  readonly accountId?: string;
}

/** The inbound context fields this plugin sets (OpenClaw's `MsgContext`). */
export interface InboundContext {
  readonly Body: string;
  readonly BodyForAgent: string;
  readonly RawBody: string;
  readonly CommandBody: string;
  readonly From: string;
  readonly To: string;
  readonly OriginatingTo: string;
  readonly OriginatingChannel: string;
  readonly Provider: string;
  readonly Surface: string;
  readonly MessageSid: string;
  readonly ChatType: "direct" | "group";
  readonly ConversationLabel: string;
  readonly SenderId: string;
  readonly SenderName: string;
  readonly SessionKey: string;
  readonly AccountId: string;
  readonly CommandAuthorized: false;
  readonly GroupSubject?: string;
  readonly GroupMembers?: string;
  readonly ChannelPromptContext?: readonly string[];
}

/** What the reply dispatcher says a payload is: a tool result, a streamed block or the final. */
export interface ReplyDispatchInfo {
  readonly kind: "tool" | "block" | "final";
}

export interface ReplyPayload {
  readonly text?: string;
}

export interface DispatchReplyParams {
  readonly ctx: unknown;
  readonly cfg: OpenClawConfig;
  readonly dispatcherOptions: {
    readonly deliver: (payload: ReplyPayload, info: ReplyDispatchInfo) => Promise<unknown>;
    readonly onError?: (error: unknown, info: ReplyDispatchInfo) => void;
  };
  readonly replyOptions?: { readonly sourceReplyDeliveryMode?: "automatic" | "message_tool_only" };
}

/** The channel runtime core hands a channel account (`ChannelGatewayContext.channelRuntime`). */
export interface ChannelRuntime {
  readonly routing: {
    readonly resolveAgentRoute: (params: {
      readonly cfg: OpenClawConfig;
      readonly channel: string;
      readonly accountId: string;
      readonly peer: { readonly kind: "direct" | "group"; readonly id: string };
    }) => AgentRoute;
  };
  readonly reply: {
    readonly finalizeInboundContext: (ctx: InboundContext) => unknown;
    /** Resolves once the whole agent run the item started has ended. */
    readonly dispatchReplyWithBufferedBlockDispatcher: (params: DispatchReplyParams) => Promise<unknown>;
  };
}

/** The plugin runtime handed to `register` (`api.runtime`). */
export interface PluginRuntime {
  readonly config?: { readonly current: () => OpenClawConfig };
  readonly channel?: ChannelRuntime;
}

export interface ChannelGatewayContext<Account> {
  readonly cfg: OpenClawConfig;
  readonly accountId: string;
  readonly account: Account;
  readonly abortSignal: AbortSignal;
  readonly log?: ChannelLogSink;
  readonly setStatus: (next: Readonly<Record<string, unknown>>) => void;
  readonly channelRuntime?: ChannelRuntime;
}

/** The model's message tool action this channel serves (`ChannelMessageActionContext`). */
export interface ChannelMessageActionContext {
  readonly channel: string;
  readonly action: string;
  readonly cfg: OpenClawConfig;
  readonly params: Readonly<Record<string, unknown>>;
  readonly accountId?: string | null;
  /** The session of the turn whose model called the tool. */
  readonly sessionKey?: string | null;
  readonly toolContext?: { readonly currentChannelId?: string };
}

export interface AgentToolResult {
  readonly content: readonly { readonly type: "text"; readonly text: string }[];
  readonly details: unknown;
}

/** Core's own sends through this channel (`ChannelMessageSendTextContext`). */
export interface ChannelMessageSendTextContext {
  readonly cfg: OpenClawConfig;
  readonly to: string;
  readonly text: string;
  readonly accountId?: string | null;
}

export interface MessageReceipt {
  readonly platformMessageIds: string[];
  readonly parts: never[];
  readonly sentAt: number;
}

export interface ChannelPlugin<Account> {
  readonly id: string;
  readonly meta: Readonly<Record<string, string>>;
  readonly capabilities: { readonly chatTypes: readonly ("direct" | "group")[] };
  readonly reload: { readonly configPrefixes: readonly string[] };
  readonly config: {
    readonly listAccountIds: (cfg: OpenClawConfig) => string[];
    readonly resolveAccount: (cfg: OpenClawConfig, accountId?: string | null) => Account;
    readonly inspectAccount: (cfg: OpenClawConfig, accountId?: string | null) => Readonly<Record<string, unknown>>;
    readonly isConfigured: (account: Account) => boolean;
    readonly isEnabled: (account: Account) => boolean;
  };
  readonly messaging: {
    readonly targetPrefixes: readonly string[];
    readonly normalizeTarget: (raw: string) => string | undefined;
    readonly inferTargetChatType: (params: { readonly to: string }) => "direct" | "group" | undefined;
    readonly targetResolver: { readonly looksLikeId: (raw: string) => boolean; readonly hint: string };
  };
  readonly gateway: { readonly startAccount: (ctx: ChannelGatewayContext<Account>) => Promise<void> };
  readonly actions: {
    readonly describeMessageTool: (params: unknown) => { readonly actions: readonly string[] };
    readonly supportsAction: (params: { readonly action: string }) => boolean;
    readonly resolveExecutionMode: (params: { readonly action: string }) => "local" | "gateway";
    readonly handleAction: (ctx: ChannelMessageActionContext) => Promise<AgentToolResult>;
  };
  readonly message: {
    readonly id: string;
    readonly send: { readonly text: (ctx: ChannelMessageSendTextContext) => Promise<{ receipt: MessageReceipt }> };
  };
}

/** The typed hooks this plugin registers (`PluginHookHandlerMap`, `PluginHookToolContext`). */
export interface PluginHooks {
  readonly after_tool_call: (
    event: { readonly toolName: string; readonly error?: string },
    ctx: { readonly sessionKey?: string },
  ) => void;
  readonly agent_end: (event: { readonly success: boolean }, ctx: { readonly sessionKey?: string }) => void;
}

/** What `register(api)` receives (`OpenClawPluginApi`), as far as this plugin uses it. */
export interface OpenClawPluginApi {
  readonly registrationMode?: string;
  readonly runtime: PluginRuntime;
  readonly registerChannel: (registration: { readonly plugin: unknown }) => void;
  readonly on?: <K extends keyof PluginHooks>(hookName: K, handler: PluginHooks[K]) => void;
}

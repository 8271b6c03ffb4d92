/**
 * The channel account's life (seed 000 "Delivery handoff", "Native host attention"): hold one
 * HarnessEndpoint, hand each inbound item to OpenClaw's stock channel dispatch, and acknowledge
 * it only once a run of its session has ended (the dispatch's own, or the one OpenClaw's restart
 * recovery runs for it) with no message tool call OpenClaw itself failed. Otherwise the account
 * ends with that failure and the item stays pending; OpenClaw restarts a failed account on its own
 * schedule and the item is offered again, unchanged, under a fresh host message id.
 */
import { Cause, Data, Effect, Exit } from "effect";
import {
  acquireHarnessEndpoint,
  forEachDelivery,
  type HarnessEndpoint,
  type InboundDelivery,
} from "@social-harness/client";
import { CHANNEL_ID, readToken, type Account } from "./config.js";
import { renderDelivery, type RenderedItem } from "./render.js";
import type { ChannelGatewayContext, ChannelRuntime, InboundContext, OpenClawConfig, PluginRuntime } from "./sdk.js";
import type { Turns } from "./turns.js";

/** OpenClaw's dispatch of one item failed; the item stays pending. */
export class DispatchFailed extends Data.TaggedError("DispatchFailed")<{ readonly cause: unknown }> {
  override get message(): string {
    return `OpenClaw's dispatch of an inbound item failed: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`;
  }
}

/** The live endpoints of this gateway's running accounts, which sends use. */
export type Endpoints = Map<string, HarnessEndpoint>;

/** How long a dispatch OpenClaw skipped waits for the run its restart recovery owns (default). */
export const RECOVERY_WAIT_MS = 180_000;

/** What the account needs beyond its endpoint: the hooks' view of turns, and retried items. */
export interface TurnTracking {
  /** The hooks' view of turns, when OpenClaw lets the plugin see them; else dispatch resolution counts. */
  readonly turns: (cfg: OpenClawConfig) => Turns | undefined;
  /** How many times each item (by message id) was offered and not handled, in this gateway process. */
  readonly unhandled: Map<string, number>;
}

function withoutPrefix(address: string): string {
  return address.replace(/^(agent|group):/, "");
}

/** The inbound context OpenClaw's dispatch receives for one rendered delivery. */
export function inboundContext(item: RenderedItem, accountId: string, sessionKey: string, offer = 0): InboundContext {
  const group =
    item.members === undefined
      ? item.chatType === "group"
        ? { GroupSubject: item.conversation }
        : {}
      : { GroupSubject: item.conversation, GroupMembers: item.members.join(", ") };
  return {
    Body: item.text,
    BodyForAgent: item.text,
    RawBody: item.text,
    CommandBody: item.text,
    From: item.sender,
    To: item.conversation,
    OriginatingTo: item.conversation,
    OriginatingChannel: CHANNEL_ID,
    Provider: CHANNEL_ID,
    Surface: CHANNEL_ID,
    // A re-offer after an unhandled turn gets a fresh id, which OpenClaw's duplicate checks let through.
    MessageSid: offer === 0 ? item.messageId : `${item.messageId}~${offer}`,
    ChatType: item.chatType,
    ConversationLabel: item.conversation,
    SenderId: item.sender,
    SenderName: item.sender,
    SessionKey: sessionKey,
    AccountId: accountId,
    CommandAuthorized: false,
    ...group,
    ...(item.guidance === undefined ? {} : { ChannelPromptContext: [item.guidance] }),
  };
}

/** Hands one delivery to OpenClaw; resolves once a turn handled it, and rejects when none did. */
export async function dispatchDelivery(
  delivery: InboundDelivery,
  ctx: ChannelGatewayContext<Account>,
  channel: ChannelRuntime,
  runtime: PluginRuntime,
  tracking: TurnTracking,
): Promise<void> {
  // The live config, not the snapshot the account started with (hot reloads keep the account).
  const cfg = runtime.config?.current() ?? ctx.cfg;
  const rendered = renderDelivery(delivery);
  const route = channel.routing.resolveAgentRoute({
    cfg,
    channel: CHANNEL_ID,
    accountId: ctx.accountId,
    peer: { kind: rendered.chatType, id: withoutPrefix(rendered.conversation) },
  });
  const offer = tracking.unhandled.get(rendered.messageId) ?? 0;
  const inbound = channel.reply.finalizeInboundContext(
    inboundContext(rendered, ctx.accountId, route.sessionKey, offer),
  );
  const turns = tracking.turns(cfg);
  turns?.begin(route.sessionKey);
  await channel.reply.dispatchReplyWithBufferedBlockDispatcher({
    ctx: inbound,
    cfg,
    dispatcherOptions: {
      // Seed 001: the reply-delivery callback withholds final output and creates no post; the
      // model speaks to other agents only through the message tool.
      deliver: (_payload, info) => {
        ctx.log?.info?.(
          `withheld ${info.kind} output for ${rendered.conversation}: Social Harness posts only through the message tool`,
        );
        return Promise.resolve();
      },
      onError: (error, info) =>
        ctx.log?.warn?.(`${info.kind} output for ${rendered.conversation} failed: ${String(error)}`),
    },
    // OpenClaw's stock tool-only visible-reply mode: finals stay private.
    replyOptions: { sourceReplyDeliveryMode: "message_tool_only" },
  });
  if (turns === undefined) return;
  const account = ctx.account.configured ? ctx.account : undefined;
  const outcome = await turns.settle(route.sessionKey, account?.recoveryWaitMs ?? RECOVERY_WAIT_MS, ctx.abortSignal);
  if (outcome.handled) {
    tracking.unhandled.delete(rendered.messageId);
    return;
  }
  tracking.unhandled.set(rendered.messageId, offer + 1);
  throw new Error(`${rendered.conversation}'s item ${rendered.messageId} stays pending: ${outcome.reason}`);
}

/**
 * Runs one channel account until OpenClaw aborts it (resolving) or its endpoint, stream, an
 * acknowledgment or a dispatch fails (rejecting with that failure).
 */
export async function runAccount(
  ctx: ChannelGatewayContext<Account>,
  runtime: PluginRuntime,
  endpoints: Endpoints,
  tracking: TurnTracking,
): Promise<void> {
  const { account, accountId } = ctx;
  if (!account.configured) throw new Error(`social-harness account ${accountId} is not configured: ${account.problem}`);
  const channel = ctx.channelRuntime ?? runtime.channel;
  if (channel === undefined)
    throw new Error("this OpenClaw gateway offers no channel runtime to dispatch inbound items");
  const program = Effect.scoped(
    Effect.gen(function* () {
      const token = readToken(account);
      const endpoint = yield* acquireHarnessEndpoint(account.endpoint, {
        ...(token === undefined ? {} : { token }),
        ...(account.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: account.requestTimeoutMs }),
      });
      endpoints.set(accountId, endpoint);
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          if (endpoints.get(accountId) === endpoint) endpoints.delete(accountId);
        }),
      );
      ctx.setStatus({ accountId, running: true, connected: true, lastConnectedAt: Date.now(), lastError: null });
      ctx.log?.info?.(`connected to the Social Harness daemon at ${account.endpoint.href}`);
      if (tracking.turns(runtime.config?.current() ?? ctx.cfg) === undefined) {
        ctx.log?.warn?.(
          `without plugins.entries.${CHANNEL_ID}.hooks.allowConversationAccess: true the plugin cannot see a turn end, so it acknowledges an item once OpenClaw's dispatch resolves, even one OpenClaw skipped`,
        );
      }
      yield* forEachDelivery(endpoint, (delivery) =>
        Effect.tryPromise({
          try: () => dispatchDelivery(delivery, ctx, channel, runtime, tracking),
          catch: (cause) => new DispatchFailed({ cause }),
        }),
      );
    }),
  );
  const exit = await Effect.runPromiseExit(program, { signal: ctx.abortSignal });
  if (Exit.isSuccess(exit) || ctx.abortSignal.aborted) return;
  const failure = Cause.squash(exit.cause);
  ctx.setStatus({ accountId, running: false, connected: false, lastError: String(failure) });
  throw failure instanceof Error ? failure : new Error(String(failure));
}

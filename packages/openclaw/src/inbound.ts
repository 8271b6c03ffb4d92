/**
 * The channel account's life (seed 000 "Delivery handoff", "Native host attention"): hold one
 * HarnessEndpoint, hand each inbound item to OpenClaw's stock channel dispatch, and acknowledge
 * it only once that dispatch has resolved, which is after the whole agent run it started. A
 * dispatch that fails ends the account with that failure and leaves the item pending; OpenClaw
 * restarts a failed account on its own schedule and the item is offered again, unchanged.
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
import type { ChannelGatewayContext, ChannelRuntime, InboundContext, PluginRuntime } from "./sdk.js";

/** OpenClaw's dispatch of one item failed; the item stays pending. */
export class DispatchFailed extends Data.TaggedError("DispatchFailed")<{ readonly cause: unknown }> {
  override get message(): string {
    return `OpenClaw's dispatch of an inbound item failed: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`;
  }
}

/** The live endpoints of this gateway's running accounts, which sends use. */
export type Endpoints = Map<string, HarnessEndpoint>;

function withoutPrefix(address: string): string {
  return address.replace(/^(agent|group):/, "");
}

/** The inbound context OpenClaw's dispatch receives for one rendered delivery. */
export function inboundContext(item: RenderedItem, accountId: string, sessionKey: string): InboundContext {
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
    MessageSid: item.messageId,
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

/** Hands one delivery to OpenClaw and resolves when the agent run it started has ended. */
export async function dispatchDelivery(
  delivery: InboundDelivery,
  ctx: ChannelGatewayContext<Account>,
  channel: ChannelRuntime,
  runtime: PluginRuntime,
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
  const inbound = channel.reply.finalizeInboundContext(inboundContext(rendered, ctx.accountId, route.sessionKey));
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
}

/**
 * Runs one channel account until OpenClaw aborts it (resolving) or its endpoint, stream, an
 * acknowledgment or a dispatch fails (rejecting with that failure).
 */
export async function runAccount(
  ctx: ChannelGatewayContext<Account>,
  runtime: PluginRuntime,
  endpoints: Endpoints,
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
      yield* forEachDelivery(endpoint, (delivery) =>
        Effect.tryPromise({
          try: () => dispatchDelivery(delivery, ctx, channel, runtime),
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

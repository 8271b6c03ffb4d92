/**
 * The `social-harness` NanoClaw channel adapter. Inbound: it holds the daemon's one push stream and
 * routes each item through NanoClaw's `onInbound`, acknowledging only once that call has succeeded;
 * a failing call leaves the item pending and the stream is opened again after `restartDelayMs`,
 * which offers the same item again (seed 000 "Delivery handoff"). Outbound: `deliver` sends each
 * row once (outbound.ts) and leaves retries to NanoClaw.
 */
import { randomUUID } from "node:crypto";
import { Cause, Data, Effect, Exit, Fiber, Scope } from "effect";
import {
  acquireHarnessEndpoint,
  forEachDelivery,
  type HarnessEndpoint,
  type InboundDelivery,
} from "@social-harness/client";
import type {
  NanoClawChannelAdapter,
  NanoClawChannelDefaults,
  NanoClawChannelSetup,
  NanoClawInboundMessage,
  NanoClawOutboundMessage,
} from "./contract.js";
import { sendRow } from "./outbound.js";
import { CHANNEL_TYPE, DAEMON_SENDER } from "./names.js";
import { isGroupAddress, renderDelivery, senderIdOf } from "./render.js";

export interface SocialHarnessAdapterOptions {
  /** The daemon's MCP endpoint, e.g. `http://127.0.0.1:40123/mcp`. */
  readonly endpoint: URL;
  /** The daemon's runtime token; without it the client reads SOCIAL_HARNESS_TOKEN. */
  readonly token?: string;
  /** How long to wait before opening the inbound stream again after it failed; default 5,000 ms. */
  readonly restartDelayMs?: number;
  readonly requestTimeoutMs?: number;
  readonly log?: (level: "info" | "warn" | "error", message: string) => void;
}

/** NanoClaw's `onInbound` failed for an item; the item stays pending. */
class InboundRouteFailed extends Data.TaggedError("InboundRouteFailed")<{ readonly cause: unknown }> {}

/**
 * Every sender that reaches the inbox was admitted by the daemon's trust policy, and the adapter's
 * own notices come from the daemon, so NanoClaw's gate lets every sender in.
 */
export const SOCIAL_HARNESS_DEFAULTS: NanoClawChannelDefaults = {
  dm: { engageMode: "pattern", engagePattern: ".", threads: false, unknownSenderPolicy: "public" },
  group: { engageMode: "pattern", engagePattern: ".", threads: false, unknownSenderPolicy: "public" },
  mentions: "never",
};

/** Creates the adapter for one daemon. */
export function createSocialHarnessAdapter(options: SocialHarnessAdapterOptions): NanoClawChannelAdapter {
  const log = options.log ?? (() => undefined);
  let scope: Scope.CloseableScope | undefined;
  let endpoint: HarnessEndpoint | undefined;
  let receiving: Fiber.RuntimeFiber<never> | undefined;

  const notice = (host: NanoClawChannelSetup, platformId: string, text: string): Promise<void> =>
    Promise.resolve(
      host.onInbound(platformId, null, {
        id: `social-harness-notice:${randomUUID()}`,
        kind: "chat",
        content: { text, sender: DAEMON_SENDER, senderId: senderIdOf(DAEMON_SENDER) },
        timestamp: new Date().toISOString(),
        isGroup: isGroupAddress(platformId),
      }),
    );

  let setupHost: NanoClawChannelSetup | undefined;

  const adapter: NanoClawChannelAdapter = {
    name: CHANNEL_TYPE,
    channelType: CHANNEL_TYPE,
    supportsThreads: false,
    defaults: SOCIAL_HARNESS_DEFAULTS,

    async setup(host) {
      setupHost = host;
      const opened = Effect.runSync(Scope.make());
      const acquired = await Effect.runPromiseExit(
        Scope.extend(
          acquireHarnessEndpoint(options.endpoint, {
            ...(options.token === undefined ? {} : { token: options.token }),
            ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
          }),
          opened,
        ),
      );
      if (Exit.isFailure(acquired)) {
        await Effect.runPromise(Scope.close(opened, Exit.void));
        throw Cause.squash(acquired.cause);
      }
      scope = opened;
      endpoint = acquired.value;
      const live = acquired.value;
      const route = (delivery: InboundDelivery) => {
        const message = renderDelivery(delivery);
        const inbound: NanoClawInboundMessage = {
          id: message.id,
          kind: "chat",
          content: { text: message.text, sender: message.sender, senderId: senderIdOf(message.sender) },
          timestamp: new Date().toISOString(),
          isGroup: message.isGroup,
        };
        return Effect.tryPromise({
          try: () => Promise.resolve(host.onInbound(message.platformId, null, inbound)),
          catch: (cause) => new InboundRouteFailed({ cause }),
        });
      };
      // Each run ends only by failing; the item it failed on is offered again by the next run.
      const runOnce = forEachDelivery(live, route).pipe(
        Effect.catchAllCause((cause) =>
          Effect.sync(() => log("warn", `the Social Harness inbound stream stopped: ${Cause.pretty(cause)}`)),
        ),
      );
      const forever = Effect.forever(Effect.zipRight(runOnce, Effect.sleep(options.restartDelayMs ?? 5_000)));
      receiving = Effect.runFork(forever);
      log("info", `connected to the Social Harness daemon at ${options.endpoint.href}`);
    },

    async teardown() {
      if (receiving !== undefined) await Effect.runPromise(Fiber.interrupt(receiving));
      if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void));
      receiving = undefined;
      scope = undefined;
      endpoint = undefined;
    },

    isConnected: () => endpoint !== undefined,

    async deliver(platformId: string, _threadId: string | null, message: NanoClawOutboundMessage) {
      const live = endpoint;
      if (live === undefined) throw new Error("the Social Harness adapter is not connected to its daemon");
      const outcome = await Effect.runPromise(sendRow(live, platformId, message));
      switch (outcome.kind) {
        case "sent":
          return undefined;
        case "retry":
          throw outcome.error;
        case "notice":
          try {
            if (setupHost === undefined) throw new Error("the adapter was never set up");
            await notice(setupHost, platformId, outcome.text);
          } catch (error) {
            // A pending or possibly sent message must never be sent a second time by a retry.
            if (!outcome.completeEvenIfUnreported) throw error;
            log("error", `could not tell the agent about ${platformId}: ${String(error)}`);
          }
          return undefined;
      }
    },
  };
  return adapter;
}

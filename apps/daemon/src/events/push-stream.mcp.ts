/**
 * events/list and events/stream (seed 000 "MCP Events and inbox", research/mcp-events.md §6): a
 * push stream of `inbox.pending` opens with notifications/events/active, then sends a content-free
 * notifications/events/event {pendingCount} whenever the pending count changes and a heartbeat at
 * least every 30 s. Every notification carries the stream's request id as its subscriptionId.
 * Closing the HTTP stream cancels it; a newer stream terminates it; a notification that fails after
 * the client left only cleans up this stream's own lease.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { ProtocolError, SUBSCRIPTION_ID_META_KEY, type Server, type ServerContext } from "@modelcontextprotocol/server";
import { EVENT_ERRORS, INBOX_ITEM_EVENT, INBOX_PENDING_EVENT } from "@social-harness/protocol";
import type { Logger } from "pino";
import * as z from "zod";
import type { Principal } from "../identity/identity.js";
import type { Inbox } from "../inbox/inbox.service.js";
import { INVALID_PARAMS } from "../mcp/tool.js";
import { EVENT_DESCRIPTORS } from "./catalogue.js";
import type { InboxConsumers } from "./consumers.js";

export interface PushStreamDeps {
  readonly inbox: Inbox;
  readonly consumers: InboxConsumers;
  readonly log: Logger;
  /** At most 30 s (seed 000); shorter in tests. */
  readonly heartbeatMs: number;
}

const ListParams = z.object({ cursor: z.string().optional() });
const StreamParams = z.object({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  cursor: z.string().nullable().optional(),
  maxAgeMs: z.number().optional(),
});

interface OpenStream {
  terminate(code: number, message: string, data?: unknown): void;
  abort(): void;
}

export class PushStreams {
  private readonly open = new Set<OpenStream>();
  /** Legacy-era clients cancel with notifications/cancelled on another request; keyed by principal and id. */
  private readonly legacy = new Map<string, OpenStream>();

  constructor(private readonly deps: PushStreamDeps) {}

  /** Adds the events methods to one per-request server. */
  register(server: Server, principal: Principal, era: "modern" | "legacy"): void {
    server.setRequestHandler("events/list", { params: ListParams }, () => ({ events: EVENT_DESCRIPTORS }));
    server.setRequestHandler("events/stream", { params: StreamParams }, (params, ctx) =>
      this.stream(params, ctx, principal, era),
    );
    if (era === "legacy") {
      server.setNotificationHandler("notifications/cancelled", (notification) => {
        const requestId = (notification.params as { requestId?: unknown } | undefined)?.requestId;
        this.legacy.get(`${principal}:${String(requestId)}`)?.abort();
      });
    }
  }

  private stream(
    params: z.infer<typeof StreamParams>,
    ctx: ServerContext,
    principal: Principal,
    era: "modern" | "legacy",
  ) {
    if (params.name === INBOX_ITEM_EVENT) {
      throw new ProtocolError(EVENT_ERRORS.unsupported, "Unsupported", { feature: "deliveryMode", value: "push" });
    }
    if (params.name !== INBOX_PENDING_EVENT)
      throw new ProtocolError(EVENT_ERRORS.notFound, "Event not found", { kind: "event" });
    if (params.arguments !== undefined && Object.keys(params.arguments).length > 0) {
      throw new ProtocolError(INVALID_PARAMS, `Invalid params: ${INBOX_PENDING_EVENT} takes no arguments`);
    }
    const requestId = ctx.mcpReq.id;
    const meta = { [SUBSCRIPTION_ID_META_KEY]: requestId };
    const log = this.deps.log.child({ stream: String(requestId), principal });

    return new Promise<{ _meta: typeof meta }>((resolve, reject) => {
      let closed = false;
      let lastCount: number | undefined;
      let counting = false;
      let recount = false;
      const notify = async (method: string, body: Record<string, unknown>) => {
        if (closed) return;
        try {
          await ctx.mcpReq.notify({ method, params: { ...body, _meta: meta } });
        } catch (error) {
          // The client is gone; only this stream's own lease is released (see cleanup).
          log.debug({ err: error }, "a push notification failed; closing the stream");
          cleanup();
          resolve({ _meta: meta });
        }
      };
      const stream: OpenStream = {
        terminate: (code, message, data) => {
          if (closed) return;
          void notify("notifications/events/terminated", {
            error: data === undefined ? { code, message } : { code, message, data },
          }).then(() => {
            cleanup();
            resolve({ _meta: meta });
          });
        },
        abort: () => {
          cleanup();
          resolve({ _meta: meta });
        },
      };
      const claim = this.deps.consumers.claim({
        kind: "push",
        key: randomUUID(),
        onReplaced: () =>
          stream.terminate(EVENT_ERRORS.forbidden, "Replaced", { reason: "a newer stream took over the inbox" }),
      });
      if (!claim.ok) {
        reject(
          new ProtocolError(EVENT_ERRORS.forbidden, "Forbidden", {
            reason: "a webhook subscription owns this inbox",
            owner: claim.owner,
          }),
        );
        return;
      }
      const legacyKey = `${principal}:${String(requestId)}`;
      this.open.add(stream);
      if (era === "legacy") this.legacy.set(legacyKey, stream);

      const sendCount = async () => {
        if (counting) {
          recount = true;
          return;
        }
        counting = true;
        try {
          do {
            recount = false;
            const pendingCount = await this.deps.inbox.pendingCount();
            if (pendingCount !== lastCount) {
              lastCount = pendingCount;
              await notify("notifications/events/event", {
                eventId: `pnd_${randomBytes(16).toString("base64url")}`,
                name: INBOX_PENDING_EVENT,
                timestamp: new Date().toISOString(),
                data: { pendingCount },
                cursor: null,
              });
            }
          } while (recount && !closed);
        } catch (error) {
          log.warn({ err: error }, "counting pending items failed");
          await notify("notifications/events/error", {
            error: { code: -32603, message: "InternalError", data: { reason: "the pending count could not be read" } },
          });
        } finally {
          counting = false;
        }
      };
      const unwatch = this.deps.inbox.watch(() => void sendCount());
      const heartbeat = setInterval(
        () => void notify("notifications/events/heartbeat", { cursor: null }),
        this.deps.heartbeatMs,
      );
      const onAbort = () => stream.abort();
      ctx.mcpReq.signal.addEventListener("abort", onAbort);

      function cleanup() {
        if (closed) return;
        closed = true;
        clearInterval(heartbeat);
        unwatch();
        ctx.mcpReq.signal.removeEventListener("abort", onAbort);
        release();
      }
      const release = () => {
        this.open.delete(stream);
        if (this.legacy.get(legacyKey) === stream) this.legacy.delete(legacyKey);
        this.deps.consumers.release(claim.lease);
      };

      // Activation precedes events; the first event gives the current count.
      void notify("notifications/events/active", { cursor: null, truncated: false }).then(() => sendCount());
    });
  }

  /** Ends every stream (daemon shutdown) with a terminated notification. */
  terminateAll(message: string): void {
    for (const stream of [...this.open]) stream.terminate(-32603, message, { reason: "shutdown" });
  }
}

/**
 * The events/stream side of the fake daemon, shaped like apps/daemon/src/events/push-stream.ts:
 * an inbox.pending stream activates, sends {pendingCount} at once and on each change, heartbeats,
 * and is terminated by a newer stream. Tests can refuse streams, silence one, terminate one, or
 * send any notification on one, e.g. carrying another stream's subscription id.
 */
import { randomBytes } from "node:crypto";
import {
  ProtocolError,
  SUBSCRIPTION_ID_META_KEY,
  type RequestId,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { McpServer } from "@modelcontextprotocol/server";
import { EVENT_ERRORS, INBOX_PENDING_EVENT } from "@social-harness/protocol";
import * as z from "zod";

const StreamParams = z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() });

export interface FakeStream {
  readonly id: RequestId;
  /** Closed by the client (abort), by termination, or by a failed notification. */
  readonly closed: boolean;
  /** From now on the stream sends nothing, heartbeats included, yet stays open. */
  silence(): void;
  /** Sends notifications/events/terminated (unless silenced) and ends the stream. */
  terminate(code?: number, message?: string, data?: unknown): Promise<void>;
  /** Sends any notification on this stream, with `subscriptionId` (this stream's id by default). */
  notify(method: string, params: Record<string, unknown>, subscriptionId?: RequestId): Promise<void>;
}

interface LiveStream extends FakeStream {
  sendCount(): void;
}

export class FakeEventStreams {
  /** Every stream opened so far, in order. */
  readonly streams: FakeStream[] = [];
  /** Every events/stream request, refused ones included. */
  attempts = 0;
  /** While set, events/stream is refused with this error before any stream opens. */
  refusal: ProtocolError | undefined;
  private readonly live = new Set<LiveStream>();
  private activated = 0;
  private readonly waiters: { count: number; resolve: () => void }[] = [];

  constructor(
    private readonly pendingCount: () => number,
    private readonly heartbeatMs: number,
  ) {}

  register(mcp: McpServer): void {
    mcp.server.setRequestHandler("events/stream", { params: StreamParams }, (params, ctx) => this.open(params, ctx));
  }

  /** Sends the new pending count on every live stream whose last count differs. */
  countChanged(): void {
    for (const stream of this.live) stream.sendCount();
  }

  /** Resolves with the `count`-th stream once it has sent `active` and its first event. */
  activation(count: number): Promise<FakeStream> {
    const done = () => this.streams[count - 1]!;
    if (this.activated >= count) return Promise.resolve(done());
    return new Promise((resolve) => this.waiters.push({ count, resolve: () => resolve(done()) }));
  }

  closeAll(): void {
    for (const stream of [...this.live]) void stream.terminate();
  }

  private open(params: z.infer<typeof StreamParams>, ctx: ServerContext): Promise<Record<string, unknown>> {
    this.attempts += 1;
    if (this.refusal !== undefined) throw this.refusal;
    if (params.name !== INBOX_PENDING_EVENT)
      throw new ProtocolError(EVENT_ERRORS.notFound, "Event not found", { kind: "event" });
    const id = ctx.mcpReq.id;
    const live = this.live;
    return new Promise((resolve) => {
      let silent = false;
      let closed = false;
      let lastCount: number | undefined;
      const raw = (method: string, body: Record<string, unknown>, subscriptionId: RequestId = id) =>
        ctx.mcpReq
          .notify({ method, params: { ...body, _meta: { [SUBSCRIPTION_ID_META_KEY]: subscriptionId } } })
          .catch(() => close());
      const send = (method: string, body: Record<string, unknown>) =>
        silent || closed ? Promise.resolve() : raw(method, body);
      const close = () => {
        if (closed) return;
        closed = true;
        clearInterval(heartbeat);
        live.delete(stream);
        ctx.mcpReq.signal.removeEventListener("abort", close);
        resolve({ _meta: { [SUBSCRIPTION_ID_META_KEY]: id } });
      };
      const stream: LiveStream = {
        id,
        get closed() {
          return closed;
        },
        silence: () => {
          silent = true;
        },
        terminate: async (code = -32603, message = "Shutdown", data = { reason: "shutdown" }) => {
          await send("notifications/events/terminated", { error: { code, message, data } });
          close();
        },
        notify: (method, body, subscriptionId = id) => raw(method, body, subscriptionId),
        sendCount: () => {
          const pendingCount = this.pendingCount();
          if (pendingCount === lastCount) return;
          lastCount = pendingCount;
          void send("notifications/events/event", {
            eventId: `pnd_${randomBytes(16).toString("base64url")}`,
            name: INBOX_PENDING_EVENT,
            timestamp: new Date().toISOString(),
            data: { pendingCount },
            cursor: null,
          });
        },
      };
      // One push consumer at a time: the newer stream takes over (SPEC §9).
      for (const older of [...live]) {
        void older.terminate(-32012, "Replaced", { reason: "a newer stream took over the inbox" });
      }
      live.add(stream);
      this.streams.push(stream);
      const heartbeat = setInterval(
        () => void send("notifications/events/heartbeat", { cursor: null }),
        this.heartbeatMs,
      );
      ctx.mcpReq.signal.addEventListener("abort", close);
      void send("notifications/events/active", { cursor: null, truncated: false }).then(() => {
        stream.sendCount();
        this.activated += 1;
        for (const waiter of this.waiters.filter((w) => this.activated >= w.count)) waiter.resolve();
      });
    });
  }
}

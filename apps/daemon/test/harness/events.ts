/**
 * An events/stream consumer on the official MCP client: it records every notification of the
 * stream (by method) so tests can wait for what a push client would see.
 */
import type { Client } from "@modelcontextprotocol/client";
import * as z from "zod";
import { eventually } from "./mcp.js";

export interface Notification {
  method: string;
  params: Record<string, any>;
}

export class PushStream {
  readonly notifications: Notification[] = [];
  readonly done: Promise<unknown>;
  private readonly controller = new AbortController();

  constructor(
    readonly client: Client,
    name = "org.social-harness/inbox.pending",
    args?: Record<string, unknown>,
  ) {
    for (const method of ["active", "event", "heartbeat", "error", "terminated"]) {
      client.setNotificationHandler(`notifications/events/${method}`, { params: z.looseObject({}) }, (params) => {
        this.notifications.push({ method: `notifications/events/${method}`, params: params as Record<string, any> });
      });
    }
    this.done = client
      .request(
        { method: "events/stream", params: { name, ...(args === undefined ? {} : { arguments: args }) } },
        z.looseObject({}),
        {
          timeout: 2 ** 31 - 1,
          signal: this.controller.signal,
        },
      )
      .then(
        (result) => ({ ok: true, result }),
        (error: unknown) => ({ ok: false, error }),
      );
  }

  of(method: string): Notification[] {
    return this.notifications.filter((n) => n.method === `notifications/events/${method}`);
  }

  /** Waits for a pendingCount event with the given value. */
  count(value: number): Promise<Notification> {
    return eventually(
      async () => this.of("event").find((n) => n.params.data?.pendingCount === value),
      15_000,
      `pendingCount ${value}`,
    );
  }

  close(): void {
    this.controller.abort("test closed the stream");
  }
}

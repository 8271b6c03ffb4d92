/**
 * Helpers for webhook system tests: events/subscribe and events/unsubscribe through the official
 * MCP client (result or JSON-RPC error, as a host sees them), the daemon flags that shorten retry
 * times, and owner-API shortcuts.
 */
import { ProtocolError, type Client } from "@modelcontextprotocol/client";
import * as z from "zod";
import { ownerClient } from "../harness/owner.js";
import type { DaemonProcess } from "../harness/processes.js";

export const ITEM = "org.social-harness/inbox.item";

/** Loopback receivers over HTTPS, with retries shortened so tests see many attempts quickly. */
export function webhookArgs(
  options: { unsafe?: boolean; baseMs?: number; capMs?: number; windowMs?: number; timeoutMs?: number } = {},
): string[] {
  const args = options.unsafe === false ? [] : ["--unsafe-allow-local-callbacks"];
  args.push("--webhook-retry-base-ms", String(options.baseMs ?? 50));
  args.push("--webhook-retry-cap-ms", String(options.capMs ?? 200));
  args.push("--webhook-timeout-ms", String(options.timeoutMs ?? 1_000));
  if (options.windowMs !== undefined) args.push("--webhook-suspend-window-ms", String(options.windowMs));
  return args;
}

export type Outcome =
  { ok: true; result: Record<string, any> } | { ok: false; code: number; message: string; data: any };

async function request(client: Client, method: string, params: Record<string, unknown>): Promise<Outcome> {
  try {
    return { ok: true, result: (await client.request({ method, params }, z.looseObject({}))) as Record<string, any> };
  } catch (error) {
    if (error instanceof ProtocolError)
      return { ok: false, code: error.code, message: error.message, data: error.data };
    throw error;
  }
}

export function subscribe(
  client: Client,
  url: string,
  secret: string,
  extra: Record<string, unknown> = {},
): Promise<Outcome> {
  return request(client, "events/subscribe", {
    name: ITEM,
    arguments: {},
    delivery: { mode: "webhook", url, secret },
    cursor: null,
    ...extra,
  });
}

/** Subscribes and fails the test unless it succeeded; returns the result. */
export async function subscribed(client: Client, url: string, secret: string, extra: Record<string, unknown> = {}) {
  const outcome = await subscribe(client, url, secret, extra);
  if (!outcome.ok)
    throw new Error(`subscribe failed: ${outcome.code} ${outcome.message} ${JSON.stringify(outcome.data)}`);
  return outcome.result;
}

export function unsubscribe(client: Client, url: string): Promise<Outcome> {
  return request(client, "events/unsubscribe", { name: ITEM, arguments: {}, delivery: { url } });
}

/** Revokes every retained subscription through the owner API, so the next test may subscribe. */
export async function revokeAll(daemon: DaemonProcess): Promise<void> {
  const owner = ownerClient(daemon);
  const { subscriptions } = await owner.subscriptions.list.query();
  for (const s of subscriptions) if (s.state !== "revoked") await owner.subscriptions.revoke.mutate({ id: s.id });
}

/** The token an event id names ("evt_" + the token's 43 characters). */
export function tokenOf(eventId: string): string {
  return `dlv_${eventId.slice(4)}`;
}

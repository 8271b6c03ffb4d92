/**
 * events/subscribe and events/unsubscribe on the /mcp endpoint (the webhook profile,
 * research/mcp-events.md §8, §11): thin handlers that hand the params and the authenticated
 * principal to the subscriptions service, and the one place its refusals become JSON-RPC errors.
 */
import { ProtocolError, type Server } from "@modelcontextprotocol/server";
import { EVENT_ERRORS } from "@social-harness/protocol";
import * as z from "zod";
import type { Principal } from "../identity/identity.js";
import type { ServerExtension } from "../mcp/mcp-endpoint.js";
import { INVALID_PARAMS } from "../mcp/tool.js";
import type { Subscriptions } from "./subscriptions.service.js";
import { WebhookError, type WebhookFailure } from "./webhooks.schema.js";

// Loose on purpose: the service checks the params in the order the draft prescribes.
const Params = z.looseObject({});

/** The JSON-RPC error for each refusal. */
export function protocolErrorOf(failure: WebhookFailure): ProtocolError {
  switch (failure.kind) {
    case "invalid-params":
      return new ProtocolError(INVALID_PARAMS, `Invalid params: ${failure.message}`);
    case "unknown-event":
      return new ProtocolError(EVENT_ERRORS.notFound, "Event not found", { kind: "event" });
    case "unknown-subscription":
      return new ProtocolError(EVENT_ERRORS.notFound, "Subscription not found", { kind: "subscription" });
    case "unsupported":
      return new ProtocolError(EVENT_ERRORS.unsupported, "Unsupported", {
        feature: failure.feature,
        value: failure.value,
      });
    case "forbidden":
      return new ProtocolError(EVENT_ERRORS.forbidden, "Forbidden", { reason: failure.reason, owner: failure.owner });
    case "callback-endpoint":
      return new ProtocolError(EVENT_ERRORS.callbackEndpoint, "Callback endpoint error", { reason: failure.reason });
  }
}

async function mapped<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof WebhookError) throw protocolErrorOf(error.failure);
    throw error;
  }
}

/** Adds the webhook methods to each per-request server, for runtime and owner principals alike. */
export function webhookMethods(subscriptions: Subscriptions): ServerExtension {
  return (server: Server, principal: Principal) => {
    server.setRequestHandler("events/subscribe", { params: Params }, (params, ctx) =>
      mapped(() => subscriptions.subscribe(principal, params, ctx.mcpReq.signal)),
    );
    server.setRequestHandler("events/unsubscribe", { params: Params }, (params) =>
      mapped(() => subscriptions.unsubscribe(principal, params)),
    );
  };
}

/**
 * NanoClaw's outbound rows as Social Harness sends (seed 001 "Stock host projection"). The text
 * of a `messages_out` row, bare or `{text}`, is read with parseMessageText, addressed to the row's
 * platform id. `send_message` returned to the model before this runs, so:
 * - a gather, all_gather or answer is sent with `failureDelivery: "inbound"`: its refusal completes
 *   the call and reaches the model as an operationFailed item;
 * - a text the parser refuses, a refusal no retry can fix (the firewall's `refused` included),
 *   and delivery-pending or outcome-unknown complete the delivery and tell the model in that
 *   conversation (a retry would send again);
 * - any other failure is thrown, so NanoClaw's own retry takes it.
 */
import { Effect, Either } from "effect";
import {
  parseMessageText,
  type CollectiveError,
  type FirewallSendError,
  type HarnessEndpoint,
  type SendError,
  type SendErrorReason,
} from "@social-harness/client";
import type { NanoClawOutboundMessage } from "./contract.js";

/** How one outbound row ends: delivered, completed with a notice for the model, or left to retry. */
export type OutboundOutcome =
  | { readonly kind: "sent" }
  | { readonly kind: "notice"; readonly text: string; readonly completeEvenIfUnreported: boolean }
  | { readonly kind: "retry"; readonly error: Error };

const FINAL_REASONS: readonly SendErrorReason[] = [
  "invalid-address",
  "unknown-agent",
  "membership-invalid",
  "content-invalid",
];

/** The text of a row's content: a bare string or `{text}`; undefined when it has none. */
export function outboundText(message: NanoClawOutboundMessage): string | undefined {
  const { content } = message;
  if (typeof content === "string") return content;
  if (typeof content === "object" && content !== null && typeof (content as { text?: unknown }).text === "string") {
    return (content as { text: string }).text;
  }
  return undefined;
}

function outcomeOfFailure(to: string, error: SendError | CollectiveError | FirewallSendError): OutboundOutcome {
  switch (error._tag) {
    case "SendError":
      if (error.reason === "delivery-pending") {
        return {
          kind: "notice",
          text: `Your message to ${to} is pending: it will still be delivered, so do not send it again.`,
          completeEvenIfUnreported: true,
        };
      }
      if (error.reason === "outcome-unknown") {
        return {
          kind: "notice",
          text: `Your message to ${to} may have been sent (${error.message}). Check before you send it again.`,
          completeEvenIfUnreported: true,
        };
      }
      if (FINAL_REASONS.includes(error.reason)) {
        return {
          kind: "notice",
          text: `Your message to ${to} was not sent (${error.message}).`,
          completeEvenIfUnreported: false,
        };
      }
      return { kind: "retry", error };
    // With failureDelivery "inbound" the daemon reports collective refusals through the inbox; one
    // that still fails the call was refused before it reached the daemon's operation.
    case "CollectiveError":
      return {
        kind: "notice",
        text: `Your message to ${to} was not sent (${error.message}).`,
        completeEvenIfUnreported: false,
      };
    // A refusal would be refused again, so its feedback goes to the model. A judge outage
    // (`unavailable`) and a hold (a stale capture, a rate window) can pass on a later attempt.
    case "FirewallSendError":
      if (error.refusal !== "refused") return { kind: "retry", error };
      return {
        kind: "notice",
        text: `Your message to ${to} was not sent: your owner's message firewall ${error.refusal} it (${error.feedback}).`,
        completeEvenIfUnreported: false,
      };
  }
}

/** Sends one outbound row to `platformId` through `endpoint`. */
export function sendRow(
  endpoint: HarnessEndpoint,
  platformId: string,
  message: NanoClawOutboundMessage,
): Effect.Effect<OutboundOutcome> {
  const text = outboundText(message);
  if (text === undefined) {
    return Effect.succeed({
      kind: "notice",
      text: `Your message to ${platformId} was not sent: Social Harness carries text only.`,
      completeEvenIfUnreported: false,
    });
  }
  const input = parseMessageText(platformId, text);
  if (Either.isLeft(input)) {
    return Effect.succeed({
      kind: "notice",
      text: `Your message to ${platformId} was not sent: ${input.left.message}`,
      completeEvenIfUnreported: false,
    });
  }
  const collective = "collectiveResponse" in input.right || (input.right.collective?.op ?? "multicast") !== "multicast";
  return endpoint.send(input.right, collective ? { failureDelivery: "inbound" } : undefined).pipe(
    Effect.as<OutboundOutcome>({ kind: "sent" }),
    Effect.catchAll((error) => Effect.succeed(outcomeOfFailure(platformId, error))),
  );
}

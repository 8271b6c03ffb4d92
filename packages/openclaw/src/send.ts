/**
 * One send from the model's words (seed 001 "Stock host projection"): the target must be an
 * `agent:` or `group:` address, the text is read with parseMessageText, and the endpoint is
 * called exactly once. The outcome is a value: `{ok: true, to}` with the check's guidance when
 * the local firewall admitted the send with an uncertain judgment, or the refusal's message,
 * which names each failing field or unreachable member. Nothing is retried or queued here.
 */
import { Effect, Either } from "effect";
import {
  parseMessageText,
  type CheckedGuidance,
  type CollectiveError,
  type FirewallSendError,
  type HarnessEndpoint,
  type SendError,
} from "@social-harness/client";

export type SendOutcome =
  | { readonly ok: true; readonly to: string; readonly guidance?: CheckedGuidance }
  | { readonly ok: false; readonly error: string };

const ADDRESS_GRAMMAR = /^(agent|group):\S+$/;

/** The address form `to` must have before anything is sent; the daemon checks the rest. */
export function isAddress(to: string): boolean {
  return ADDRESS_GRAMMAR.test(to);
}

function describeFailure(error: SendError | CollectiveError | FirewallSendError): string {
  switch (error._tag) {
    case "SendError":
      // The two reasons after which the message exists, or may: a resend would send it twice.
      if (error.reason === "delivery-pending")
        return `pending: it will still be delivered, do not send it again (${error.message})`;
      if (error.reason === "outcome-unknown")
        return `may have been sent: check before sending it again (${error.message})`;
      return `not sent (${error.message})`;
    case "CollectiveError":
      return `not sent (collective-failed: ${error.message})`;
    case "FirewallSendError":
      return `not sent (firewall-refused: ${error.message})`;
  }
}

/** Reads `text` as a send to `to` and performs it through `endpoint`. */
export function sendText(endpoint: HarnessEndpoint, to: string, text: string): Effect.Effect<SendOutcome> {
  if (!isAddress(to)) {
    return Effect.succeed({
      ok: false,
      error: `invalid-address: "${to}" is not an agent:<name> or group:<name>,<name>,… address`,
    });
  }
  const input = parseMessageText(to, text);
  if (Either.isLeft(input)) {
    return Effect.succeed({ ok: false, error: `content-invalid: ${input.left.message}` });
  }
  return endpoint.send(input.right).pipe(
    Effect.map((result): SendOutcome =>
      result.guidance === undefined ? { ok: true, to } : { ok: true, to, guidance: result.guidance },
    ),
    Effect.catchAll((error) => Effect.succeed<SendOutcome>({ ok: false, error: describeFailure(error) })),
  );
}

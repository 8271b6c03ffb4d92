/**
 * The closed failures of a send (seed 003 "Closed failures", "Operations", "Local guidance"):
 * SendError with one of the eleven reasons, CollectiveError for a gather, all_gather or answer
 * refused, and FirewallSendError for a send the local firewall refused or held.
 */
import {
  describeCollectiveFailure,
  type CollectiveFailure,
  type FirewallRefusal,
  type SendErrorReason,
} from "@social-harness/protocol";

export class SendError extends Error {
  override readonly name = "SendError";
  constructor(
    readonly reason: SendErrorReason,
    readonly detail?: string,
    options?: { cause?: unknown },
  ) {
    super(detail === undefined ? reason : `${reason}: ${detail}`, options);
  }
}

export class CollectiveError extends Error {
  override readonly name = "CollectiveError";
  constructor(
    readonly failure: CollectiveFailure,
    readonly id?: string,
  ) {
    super(describeCollectiveFailure(failure));
  }
}

/** The local firewall refused or held the send: nothing was bound, nothing will be sent. */
export class FirewallSendError extends Error {
  override readonly name = "FirewallSendError";
  constructor(
    readonly checkId: string,
    readonly refusal: FirewallRefusal,
    /** What the model may be told: the deciding rules' instructions, never private evidence. */
    readonly feedback: string,
  ) {
    super(`the local firewall ${refusal === "unavailable" ? "was unavailable" : refusal} (${checkId}): ${feedback}`);
  }
}

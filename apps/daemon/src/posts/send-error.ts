/**
 * The closed failures of a send (seed 003 "Closed failures", "Operations"): SendError with one of
 * the eleven reasons, and CollectiveError for a gather, all_gather or answer refused.
 */
import { describeCollectiveFailure, type CollectiveFailure, type SendErrorReason } from "@social-harness/protocol";

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

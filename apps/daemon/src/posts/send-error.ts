/** SendError: the closed reasons a send fails with (seed 003 "Closed failures"). */
import type { SendErrorReason } from "@social-harness/protocol";

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

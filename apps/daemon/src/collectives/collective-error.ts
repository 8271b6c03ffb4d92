/** CollectiveError: a gather, all_gather or answer refused (seed 003 "Operations"). */
import { describeCollectiveFailure, type CollectiveFailure } from "@social-harness/protocol";

export class CollectiveError extends Error {
  override readonly name = "CollectiveError";
  constructor(
    readonly failure: CollectiveFailure,
    readonly id?: string,
  ) {
    super(describeCollectiveFailure(failure));
  }
}

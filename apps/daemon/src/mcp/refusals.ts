/**
 * The one place domain failures become MCP errors: SendError, CollectiveError and
 * FirewallSendError as -32030 with their data (SPEC §6), inbox lookups as -32030 with
 * `unknown-delivery` / `unknown-event`, and malformed cursors as InvalidParams.
 */
import { SEND_REFUSED_CODE, describeCollectiveFailure } from "@social-harness/protocol";
import { InboxError } from "../inbox/inbox.service.js";
import { CollectiveError, FirewallSendError, SendError } from "../posts/send-error.js";
import { INVALID_PARAMS, ToolRefusal } from "./tool.js";

export function refusalOf(error: unknown): ToolRefusal | undefined {
  if (error instanceof ToolRefusal) return error;
  if (error instanceof SendError) {
    const data = error.detail === undefined ? { reason: error.reason } : { reason: error.reason, detail: error.detail };
    return new ToolRefusal(SEND_REFUSED_CODE, `Send refused: ${error.message}`, data);
  }
  if (error instanceof CollectiveError) {
    const data =
      error.id === undefined
        ? { reason: "collective-failed", failure: error.failure }
        : { reason: "collective-failed", id: error.id, failure: error.failure };
    return new ToolRefusal(
      SEND_REFUSED_CODE,
      `Collective operation refused: ${describeCollectiveFailure(error.failure)}`,
      data,
    );
  }
  if (error instanceof FirewallSendError) {
    return new ToolRefusal(SEND_REFUSED_CODE, `Send refused by the local firewall: ${error.feedback}`, {
      reason: "firewall-refused",
      checkId: error.checkId,
      refusal: error.refusal,
      feedback: error.feedback,
    });
  }
  if (error instanceof InboxError) {
    switch (error.reason) {
      case "invalid-cursor":
        return new ToolRefusal(INVALID_PARAMS, `Invalid params: ${error.message}`);
      case "unknown-delivery":
      case "unknown-event":
        return new ToolRefusal(SEND_REFUSED_CODE, error.message, { reason: error.reason });
    }
  }
  return undefined;
}

/**
 * HarnessEndpoint.send over the send_message tool (seed 001 "MCP adapter projection"): the input
 * travels as message text, runtime options in `_meta["org.social-harness/send"]`, and a refusal
 * comes back as the typed error its data names. Whatever may have reached the daemon without a
 * readable answer is outcome-unknown; only a request that never left is network-unavailable.
 */
import { Effect } from "effect";
import {
  CheckedGuidanceSchema,
  isId,
  SEND_OPTIONS_META_KEY,
  SEND_REFUSED_CODE,
  writeMessageText,
} from "@social-harness/protocol";
import { SendError, sendErrorFromRefusal, type CollectiveError, type FirewallSendError } from "./errors.js";
import type { McpConnection } from "./mcp-connection.js";
import type { ToolCallError } from "./mcp-errors.js";
import type { HarnessEndpoint, SendInput, SendResult } from "./types.js";

type SendOptions = Parameters<HarnessEndpoint["send"]>[1];
type SendFailure = SendError | CollectiveError | FirewallSendError;

function failureOfCall(error: ToolCallError): SendFailure {
  switch (error.kind) {
    case "refused":
      return error.code === SEND_REFUSED_CODE
        ? sendErrorFromRefusal(error.data)
        : new SendError({
            reason: "outcome-unknown",
            detail: `the daemon answered JSON-RPC error ${error.code ?? "?"} without a typed failure: ${error.detail}`,
            cause: error,
          });
    case "unauthorized":
    case "unsent":
      return new SendError({ reason: "network-unavailable", detail: error.detail, cause: error });
    case "ambiguous":
    case "failed":
      return new SendError({ reason: "outcome-unknown", detail: error.detail, cause: error });
  }
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Results are read additively, so a newer daemon can add an optional field (seed 001); the fields
// this release names must have their exact forms.
function readSendResult(structured: unknown): SendResult | undefined {
  if (!isRecord(structured)) return undefined;
  const { operationId, guidance } = structured;
  if (operationId !== undefined && !isId("collective", operationId)) return undefined;
  if (guidance === undefined) return operationId === undefined ? {} : { operationId };
  const checked = CheckedGuidanceSchema.safeParse(guidance);
  if (!checked.success) return undefined;
  return operationId === undefined ? { guidance: checked.data } : { operationId, guidance: checked.data };
}

/** Sends `input` through the daemon at `connection`. */
export function sendMessage(
  connection: McpConnection,
  input: SendInput,
  options?: SendOptions,
): Effect.Effect<SendResult, SendFailure> {
  return Effect.gen(function* () {
    const text = writeMessageText(input);
    if (text === undefined) {
      return yield* new SendError({
        reason: "content-invalid",
        detail:
          "a multicast's text cannot read as a collective operation: send it as a gather, all_gather or answer, or reword it",
      });
    }
    const meta =
      options?.failureDelivery === undefined
        ? undefined
        : { [SEND_OPTIONS_META_KEY]: { failureDelivery: options.failureDelivery } };
    const structured = yield* connection
      .callTool("send_message", { to: input.to, text }, meta)
      .pipe(Effect.mapError(failureOfCall));
    const result = readSendResult(structured);
    if (result === undefined) {
      return yield* new SendError({
        reason: "outcome-unknown",
        detail: `the send completed with a result this client cannot read: ${JSON.stringify(structured)}`,
      });
    }
    return result;
  });
}

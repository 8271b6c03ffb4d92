/**
 * The MCP tool `send_message` (seed 001 "MCP adapter projection"): arguments exactly {to, text};
 * runtime options only in `_meta["org.social-harness/send"]`; results {} for a multicast,
 * {operationId} for a collective or an answer, plus guidance when present.
 */
import {
  CheckedGuidanceSchema,
  RuntimeSendOptionsSchema,
  SEND_OPTIONS_META_KEY,
  SEND_REFUSED_CODE,
  traced,
} from "@social-harness/protocol";
import * as z from "zod";
import { defineTool, INVALID_PARAMS, ToolRefusal, type ToolDefinition } from "../mcp/tool.js";
import { refusalOf } from "../mcp/refusals.js";
import type { DaemonMetrics } from "../metrics/daemon-metrics.js";
import type { TextSender } from "./semantic-send.js";

export const SendMessageInput = z.strictObject({
  to: z.string().describe("agent:<name> for one agent, or group:<name>,<name>,... for a group (you are included)"),
  text: z.string().describe("Plain text is a message. A JSON gather, all_gather or answer object runs that operation."),
});

export const SendMessageOutput = z.strictObject({
  operationId: z.string().optional(),
  guidance: CheckedGuidanceSchema.optional(),
});

/** Built once: a zod schema made per call costs more than the check itself. */
const OptionalSendOptions = RuntimeSendOptionsSchema.optional();

/** The metrics a send reports: its refusal reason ("none" when sent) and its duration. */
export type SendMetrics = Pick<DaemonMetrics, "sendFinished">;

function reasonOf(error: unknown): string {
  const data = refusalOf(error)?.data;
  return typeof data === "object" && data !== null && "reason" in data && typeof data.reason === "string"
    ? data.reason
    : "outcome-unknown";
}

export function sendMessageTool(send: TextSender, metrics?: SendMetrics): ToolDefinition {
  const tool = defineTool({
    name: "send_message",
    title: "Send a message",
    description:
      "Send to another agent (agent:<name>) or a group (group:<names>). Plain text is a message. " +
      'Text that is JSON runs an operation: {"gather": question, "deadline": seconds, "requestedSchema": form} asks ' +
      'each agent; {"all_gather": ...} asks a group and shares the result; {"action":"accept","content":{...}} or ' +
      '{"action":"decline"} answers the one request open in that conversation.',
    input: SendMessageInput,
    output: SendMessageOutput,
    principals: ["runtime"],
    async run(args, ctx) {
      const options = OptionalSendOptions.safeParse(ctx.meta?.[SEND_OPTIONS_META_KEY]);
      if (!options.success) {
        throw new ToolRefusal(
          INVALID_PARAMS,
          `Invalid params: _meta["${SEND_OPTIONS_META_KEY}"] must be {failureDelivery?: "result" | "inbound"}`,
        );
      }
      if (metrics === undefined) return send.sendText(args.to, args.text, options.data?.failureDelivery ?? "result");
      const started = performance.now();
      try {
        const result = await send.sendText(args.to, args.text, options.data?.failureDelivery ?? "result");
        metrics.sendFinished("none", (performance.now() - started) / 1000);
        return result;
      } catch (error) {
        metrics.sendFinished(reasonOf(error), (performance.now() - started) / 1000);
        throw error;
      }
    },
    onInvalidResult: (issues) =>
      new ToolRefusal(SEND_REFUSED_CODE, "Send outcome unknown", {
        reason: "outcome-unknown",
        detail: `the send completed with a result that failed the tool's output schema (${issues})`,
      }),
  });
  // One post is one trace; its root span covers the whole send (packages/protocol/src/tracing.ts).
  return { ...tool, run: (args, ctx) => traced("send", () => tool.run(args, ctx)) };
}

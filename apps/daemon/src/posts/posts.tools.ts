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
} from "@social-harness/protocol";
import * as z from "zod";
import { defineTool, INVALID_PARAMS, ToolRefusal } from "../mcp/tool.js";
import type { TextSender } from "./semantic-send.js";

export const SendMessageInput = z.strictObject({
  to: z.string().describe("agent:<name> for one agent, or group:<name>,<name>,... for a group (you are included)"),
  text: z.string().describe("Plain text is a message. A JSON gather, all_gather or answer object runs that operation."),
});

export const SendMessageOutput = z.strictObject({
  operationId: z.string().optional(),
  guidance: CheckedGuidanceSchema.optional(),
});

export function sendMessageTool(send: TextSender) {
  return defineTool({
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
      const options = RuntimeSendOptionsSchema.optional().safeParse(ctx.meta?.[SEND_OPTIONS_META_KEY]);
      if (!options.success) {
        throw new ToolRefusal(
          INVALID_PARAMS,
          `Invalid params: _meta["${SEND_OPTIONS_META_KEY}"] must be {failureDelivery?: "result" | "inbound"}`,
        );
      }
      return send.sendText(args.to, args.text, options.data?.failureDelivery ?? "result");
    },
    onInvalidResult: (issues) =>
      new ToolRefusal(SEND_REFUSED_CODE, "Send outcome unknown", {
        reason: "outcome-unknown",
        detail: `the send completed with a result that failed the tool's output schema (${issues})`,
      }),
  });
}

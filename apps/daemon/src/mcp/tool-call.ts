/**
 * One tools/call, whichever path carries it (the SDK's dispatcher or the direct path): the
 * arguments are checked once against the tool's strict schema, the tool runs, a refusal keeps its
 * JSON-RPC code and data, and the result is checked against the output schema (unless it comes
 * already encoded from what the daemon stored: EncodedResult). The outcome is a value; each
 * path writes it in its own envelope.
 */
import type * as z from "zod";
import type { Logger } from "pino";
import type { Principal } from "../identity/identity.js";
import { refusalOf } from "./refusals.js";
import { EncodedResult, INVALID_PARAMS, type ToolDefinition } from "./tool.js";

export type ToolCallOutcome =
  | { readonly ok: true; readonly structured: Record<string, unknown> }
  | { readonly ok: true; readonly encoded: string }
  | { readonly ok: false; readonly code: number; readonly message: string; readonly data?: unknown };

export interface ToolCallContext {
  readonly principal: Principal;
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  readonly signal: AbortSignal;
  readonly log: Logger;
}

/** A successful outcome's structured content as JSON text, and as a value. */
export const jsonOf = (outcome: Extract<ToolCallOutcome, { ok: true }>): string =>
  "encoded" in outcome ? outcome.encoded : JSON.stringify(outcome.structured);
export const structuredOf = (outcome: Extract<ToolCallOutcome, { ok: true }>): Record<string, unknown> =>
  "encoded" in outcome ? (JSON.parse(outcome.encoded) as Record<string, unknown>) : outcome.structured;

export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "arguments"}: ${i.message}`).join("; ");
}

const failed = (code: number, message: string, data?: unknown): ToolCallOutcome =>
  data === undefined ? { ok: false, code, message } : { ok: false, code, message, data };

export async function callTool(tool: ToolDefinition, raw: unknown, ctx: ToolCallContext): Promise<ToolCallOutcome> {
  const args = tool.input.safeParse(raw ?? {});
  if (!args.success) {
    return failed(INVALID_PARAMS, `Invalid arguments for tool ${tool.name}: ${describeIssues(args.error)}`);
  }
  let result: unknown;
  try {
    // The signal is read only if the tool reads it (ClientGone makes it on first use).
    result = await tool.run(args.data, {
      principal: ctx.principal,
      meta: ctx.meta,
      get signal() {
        return ctx.signal;
      },
    });
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal !== undefined) return failed(refusal.code, refusal.message, refusal.data);
    ctx.log.error({ err: error, tool: tool.name }, "tool failed");
    return failed(-32603, "Internal error", { cause: error instanceof Error ? error.message : String(error) });
  }
  if (result instanceof EncodedResult) return { ok: true, encoded: result.json };
  const checked = tool.output.safeParse(result);
  if (!checked.success) {
    ctx.log.error({ tool: tool.name, issues: describeIssues(checked.error) }, "tool result failed its output schema");
    const refusal = tool.onInvalidResult?.(describeIssues(checked.error));
    if (refusal !== undefined) return failed(refusal.code, refusal.message, refusal.data);
    return failed(-32603, "Internal error: the result failed the tool's output schema");
  }
  return { ok: true, structured: checked.data as Record<string, unknown> };
}

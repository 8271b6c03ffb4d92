/**
 * What an MCP tool is to this daemon: exact zod input and output schemas, the principals that may
 * call it, and one service call. Refusals are thrown as ToolRefusal and leave as JSON-RPC errors
 * with their code and data intact (SPEC §6); the SDK's own tool path would flatten them.
 */
import type * as z from "zod";
import type { Principal } from "../identity/identity.js";

export interface ToolContext {
  readonly principal: Principal;
  /** The request's `_meta`, without the reserved io.modelcontextprotocol/* keys. */
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  readonly signal: AbortSignal;
}

export interface ToolDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  readonly principals: readonly Principal[];
  run(args: z.infer<I>, ctx: ToolContext): Promise<z.infer<O> | EncodedResult>;
  /** Turns a result that fails the output schema into the tool's own refusal. */
  onInvalidResult?(issues: string): ToolRefusal;
}

export function defineTool<I extends z.ZodType, O extends z.ZodType>(tool: ToolDefinition<I, O>): ToolDefinition {
  return tool;
}

/**
 * A result already encoded as the output schema's JSON, from values this daemon encoded itself
 * when it stored them (a read_inbox page: inbox.store.ts `entryJsonOf`). It is sent as it is: the
 * output schema is advertised, not run over those values again on every read.
 */
export class EncodedResult {
  constructor(readonly json: string) {}
}

/** A JSON-RPC error a tool answers with. */
export class ToolRefusal extends Error {
  override readonly name = "ToolRefusal";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export const INVALID_PARAMS = -32602;

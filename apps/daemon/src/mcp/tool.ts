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
  run(args: z.infer<I>, ctx: ToolContext): Promise<z.infer<O>>;
  /**
   * The result is made of values each parsed by its wire schema as it was read from the store
   * (the inbox's items, inbox.store.ts `inboxValuesOf`), so the output schema is advertised but
   * not run over them a second time.
   */
  readonly storedOutput?: true;
  /** Turns a result that fails the output schema into the tool's own refusal. */
  onInvalidResult?(issues: string): ToolRefusal;
}

export function defineTool<I extends z.ZodType, O extends z.ZodType>(tool: ToolDefinition<I, O>): ToolDefinition {
  return tool;
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

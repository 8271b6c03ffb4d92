/**
 * The MCP Events error codes, in one table (research/mcp-events.md §11): the design-sketch numbers
 * that ChatGPT and the AI SDK speak. SEP-3415 may renumber them; only this file would change.
 */
export const EVENT_ERRORS = {
  notFound: -32011,
  forbidden: -32012,
  resourceExhausted: -32013,
  unsupported: -32014,
  callbackEndpoint: -32015,
} as const;

/**
 * The MCP names a daemon and its clients must spell alike: the send options key (seed 001 "MCP
 * adapter projection"), the daemon's events (SPEC §9) and the MCP Events error codes
 * (research/mcp-events.md §11, the design-sketch numbers; SEP-3415 may renumber them).
 */
import * as z from "zod";

/** Runtime send options travel in `_meta[SEND_OPTIONS_META_KEY]`, never in the tool arguments. */
export const SEND_OPTIONS_META_KEY = "org.social-harness/send";

export const RuntimeSendOptionsSchema = z.strictObject({
  failureDelivery: z.enum(["result", "inbound"]).optional(),
});
export type RuntimeSendOptions = z.infer<typeof RuntimeSendOptionsSchema>;

/** Pushed on events/stream with only {pendingCount}; no replay. */
export const INBOX_PENDING_EVENT = "org.social-harness/inbox.pending";
/** Delivered to a webhook: one classified item per event. */
export const INBOX_ITEM_EVENT = "org.social-harness/inbox.item";

export const EVENT_ERRORS = {
  notFound: -32011,
  forbidden: -32012,
  resourceExhausted: -32013,
  unsupported: -32014,
  callbackEndpoint: -32015,
} as const;

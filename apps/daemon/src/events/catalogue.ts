/**
 * The events this daemon offers (SPEC §9, seed 000): `org.social-harness/inbox.pending`, pushed
 * on events/stream with only {pendingCount}; and `org.social-harness/inbox.item`, delivered to a
 * webhook, one classified item per event (or a reference to it above 256 KiB of envelope).
 */
import { INBOX_ITEM_EVENT, INBOX_PENDING_EVENT } from "@social-harness/protocol";

const NO_ARGUMENTS = { type: "object", properties: {}, additionalProperties: false } as const;

export const EVENT_DESCRIPTORS = [
  {
    name: INBOX_PENDING_EVENT,
    description:
      "The number of pending inbox items changed. Content-free: read the inbox (read_inbox) to see what arrived. " +
      "No replay: the cursor is always null.",
    delivery: ["push"],
    inputSchema: NO_ARGUMENTS,
    payloadSchema: {
      type: "object",
      properties: { pendingCount: { type: "integer", minimum: 0 } },
      required: ["pendingCount"],
      additionalProperties: false,
    },
  },
  {
    name: INBOX_ITEM_EVENT,
    description:
      "One classified inbox item per event, in inbox order; a 2xx receipt retires it. Above 256 KiB the event " +
      "carries a reference; fetch the item with read_event({eventId}).",
    delivery: ["webhook"],
    inputSchema: NO_ARGUMENTS,
    payloadSchema: {
      oneOf: [
        {
          type: "object",
          properties: { kind: { const: "item" }, item: { type: "object" }, guidance: { type: "object" } },
          required: ["kind", "item"],
        },
        {
          type: "object",
          properties: {
            kind: { const: "reference" },
            itemKind: { type: "string" },
            bytes: { type: "integer", minimum: 0 },
          },
          required: ["kind", "itemKind", "bytes"],
        },
      ],
    },
  },
] as const;

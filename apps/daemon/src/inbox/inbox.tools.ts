/**
 * The inbox tools (seed 000): read_inbox {cursor?}, acknowledge_delivery {deliveryToken} → {}, and
 * read_event {eventId} → {item, guidance?}. Available to runtime hosts and owner diagnostics.
 */
import { InboundItemSchema, InboxEntrySchema, isId, LocalGuidanceSchema } from "@social-harness/protocol";
import * as z from "zod";
import { defineTool, EncodedResult } from "../mcp/tool.js";
import type { Inbox } from "./inbox.service.js";

const DeliveryToken = z
  .string()
  .refine((v) => isId("delivery", v), "must be dlv_ followed by 43 canonical base64url characters");
const EventId = z
  .string()
  .refine((v) => isId("event", v), "must be evt_ followed by 43 canonical base64url characters");

export function inboxTools(inbox: Inbox) {
  return [
    defineTool({
      name: "read_inbox",
      title: "Read the inbox",
      description:
        "Pending items, oldest first: at most 50 and 2 MiB per page. Pass nextCursor to continue. Reading never " +
        "acknowledges; call acknowledge_delivery once an item is handled.",
      input: z.strictObject({ cursor: z.string().optional() }),
      output: z.strictObject({ items: z.array(InboxEntrySchema), nextCursor: z.string().optional() }),
      principals: ["runtime", "owner"],
      run: async (args) => new EncodedResult(await inbox.readPage(args.cursor)),
    }),
    defineTool({
      name: "acknowledge_delivery",
      title: "Acknowledge a delivery",
      description: "Marks one inbox item handled. Idempotent. Carries no content and authorises no post.",
      input: z.strictObject({ deliveryToken: DeliveryToken }),
      output: z.strictObject({}),
      principals: ["runtime", "owner"],
      async run(args, ctx) {
        await inbox.acknowledge(args.deliveryToken, ctx.principal);
        return {};
      },
    }),
    defineTool({
      name: "read_event",
      title: "Read an event's item",
      description:
        "The retained item of an event id (evt_ + the delivery token's 43 characters), also after acknowledgment.",
      input: z.strictObject({ eventId: EventId }),
      output: z.strictObject({ item: InboundItemSchema, guidance: LocalGuidanceSchema.optional() }),
      principals: ["runtime", "owner"],
      run: (args) => inbox.readEvent(args.eventId),
    }),
  ];
}

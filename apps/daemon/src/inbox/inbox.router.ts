/** Owner API for the inbox: list pending items (newest first, paged) and discard one. */
import { isId } from "@social-harness/protocol";
import * as z from "zod";
import { ownerProcedure, router } from "../owner/trpc.js";

export const inboxRouter = router({
  list: ownerProcedure
    .input(
      z
        .object({ before: z.number().int().positive().optional(), limit: z.number().int().min(1).max(200).default(50) })
        .default({ limit: 50 }),
    )
    .query(({ ctx, input }) => ctx.services.inbox.listForOwner(input, ctx.services.name)),
  discard: ownerProcedure
    .input(z.object({ deliveryToken: z.string().refine((v) => isId("delivery", v), "not a delivery token") }))
    .mutation(async ({ ctx, input }) => {
      await ctx.services.inbox.acknowledge(input.deliveryToken, "owner");
      return { discarded: true };
    }),
});

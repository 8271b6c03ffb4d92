/** Owner API for the inbox: list pending items (newest first, paged) and discard one. */
import { isId } from "@social-harness/protocol";
import { TRPCError } from "@trpc/server";
import * as z from "zod";
import { ownerProcedure, router } from "../owner/trpc.js";
import { entryOf, InboxError } from "./inbox.service.js";
import { listPendingRows } from "./inbox.store.js";

export const inboxRouter = router({
  list: ownerProcedure
    .input(
      z
        .object({ before: z.number().int().positive().optional(), limit: z.number().int().min(1).max(200).default(50) })
        .default({ limit: 50 }),
    )
    .query(async ({ ctx, input }) => {
      const rows = await listPendingRows(ctx.services.store.db, input.before, input.limit + 1);
      const page = rows.slice(0, input.limit);
      return {
        items: page.map((row) => ({ ...entryOf(row), receivedAt: row.createdAt, conversation: row.conv })),
        pendingCount: await ctx.services.inbox.pendingCount(),
        nextBefore: rows.length > input.limit ? page.at(-1)?.id : undefined,
      };
    }),
  discard: ownerProcedure
    .input(z.object({ deliveryToken: z.string().refine((v) => isId("delivery", v), "not a delivery token") }))
    .mutation(async ({ ctx, input }) => {
      try {
        await ctx.services.inbox.acknowledge(input.deliveryToken, "owner");
      } catch (error) {
        if (error instanceof InboxError) throw new TRPCError({ code: "NOT_FOUND", message: error.message });
        throw error;
      }
      return { discarded: true };
    }),
});

/**
 * The owner API for webhook subscriptions (SPEC §11): list and status (state and diagnostics,
 * never the callback URL or the secret), revoke, and resume (refused for a terminal rejection).
 * Refusals map to tRPC errors here and nowhere else.
 */
import { TRPCError } from "@trpc/server";
import * as z from "zod";
import { ownerProcedure, router } from "../owner/trpc.js";
import { isSubscriptionId, SubscriptionOwnerError } from "./webhooks.schema.js";

const ById = z.object({ id: z.string().refine(isSubscriptionId, "not a subscription id") });

async function mapped<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof SubscriptionOwnerError)) throw error;
    switch (error.reason) {
      case "unknown-subscription":
        throw new TRPCError({ code: "NOT_FOUND", message: error.message });
      case "revoked":
      case "terminal":
        throw new TRPCError({ code: "PRECONDITION_FAILED", message: error.message });
    }
  }
}

export const subscriptionsRouter = router({
  list: ownerProcedure.query(async ({ ctx }) => ({ subscriptions: await ctx.services.subscriptions.list() })),
  status: ownerProcedure
    .input(ById)
    .query(({ ctx, input }) => mapped(() => ctx.services.subscriptions.status(input.id))),
  revoke: ownerProcedure
    .input(ById)
    .mutation(({ ctx, input }) => mapped(() => ctx.services.subscriptions.revoke(input.id))),
  resume: ownerProcedure
    .input(ById)
    .mutation(({ ctx, input }) => mapped(() => ctx.services.subscriptions.resume(input.id))),
});

/**
 * The owner API for webhook subscriptions (SPEC §11): list and status (state and diagnostics,
 * never the callback URL or the secret), revoke, and resume (refused for a terminal rejection).
 * Refusals map to tRPC errors in owner/errors.ts.
 */
import * as z from "zod";
import { ownerProcedure, router } from "../owner/trpc.js";
import { isSubscriptionId } from "./webhooks.schema.js";

const ById = z.object({ id: z.string().refine(isSubscriptionId, "not a subscription id") });

export const subscriptionsRouter = router({
  list: ownerProcedure.query(async ({ ctx }) => ({ subscriptions: await ctx.services.subscriptions.list() })),
  status: ownerProcedure.input(ById).query(({ ctx, input }) => ctx.services.subscriptions.status(input.id)),
  revoke: ownerProcedure.input(ById).mutation(({ ctx, input }) => ctx.services.subscriptions.revoke(input.id)),
  resume: ownerProcedure.input(ById).mutation(({ ctx, input }) => ctx.services.subscriptions.resume(input.id)),
});

/**
 * Owner API for trust: the list, only ever changed here. Trusting a sender releases its holds, and
 * says whether the router knows that name (a name nobody registered yet is trusted all the same).
 */
import { isAgentName } from "@social-harness/protocol";
import * as z from "zod";
import { ownerProcedure, router } from "../owner/trpc.js";

const AgentName = z.string().refine(isAgentName, "must be an agent name (3-32 of a-z 0-9 _ -)");

export const trustRouter = router({
  list: ownerProcedure.query(async ({ ctx }) => ({
    policy: ctx.services.trust.policy,
    trusted: await ctx.services.trust.list(),
  })),
  add: ownerProcedure.input(z.object({ name: AgentName })).mutation(async ({ ctx, input }) => {
    const [result, registered] = await Promise.all([
      ctx.services.admission.trustSender(input.name),
      ctx.services.registered(input.name),
    ]);
    return { ...result, registered };
  }),
  remove: ownerProcedure
    .input(z.object({ name: AgentName }))
    .mutation(({ ctx, input }) => ctx.services.trust.remove(input.name)),
});

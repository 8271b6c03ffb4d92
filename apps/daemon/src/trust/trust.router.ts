/** Owner API for trust: the list, only ever changed here. Trusting a sender releases its holds. */
import { isAgentName } from "@social-harness/protocol";
import * as z from "zod";
import { ownerProcedure, router } from "../owner/trpc.js";

const AgentName = z.string().refine(isAgentName, "must be an agent name (3-32 of a-z 0-9 _ -)");

export const trustRouter = router({
  list: ownerProcedure.query(async ({ ctx }) => ({
    policy: ctx.services.trust.policy,
    trusted: await ctx.services.trust.list(),
  })),
  add: ownerProcedure
    .input(z.object({ name: AgentName }))
    .mutation(({ ctx, input }) => ctx.services.admission.trustSender(input.name)),
  remove: ownerProcedure
    .input(z.object({ name: AgentName }))
    .mutation(({ ctx, input }) => ctx.services.trust.remove(input.name)),
});

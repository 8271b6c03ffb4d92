/** Owner API for trust: the list (only ever changed here) and the items held for the owner. */
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
    .mutation(({ ctx, input }) => ctx.services.trust.add(input.name)),
  remove: ownerProcedure
    .input(z.object({ name: AgentName }))
    .mutation(({ ctx, input }) => ctx.services.trust.remove(input.name)),
});

export const holdsRouter = router({
  list: ownerProcedure.query(async ({ ctx }) => ({ holds: await ctx.services.trust.holds() })),
});

/**
 * Owner API for the firewall (SPEC §10): get and set the policy (an invalid draft is a BAD_REQUEST
 * naming each field, and the old policy stays), its revisions, the audit of recent checks, and a
 * replay of a draft over the last stored records.
 */
import * as z from "zod";
import { ownerProcedure, router } from "../owner/trpc.js";

export const firewallRouter = router({
  get: ownerProcedure.query(({ ctx }) => ctx.services.firewall.get()),
  set: ownerProcedure
    .input(z.object({ policy: z.unknown() }))
    .mutation(({ ctx, input }) => ctx.services.firewall.set(input.policy)),
  revisions: ownerProcedure.query(async ({ ctx }) => ({ revisions: await ctx.services.firewall.revisions() })),
  checks: ownerProcedure
    .input(
      z
        .object({ cursor: z.number().int().positive().optional(), limit: z.number().int().min(1).max(200).default(50) })
        .default({ limit: 50 }),
    )
    .query(({ ctx, input }) => ctx.services.firewall.checks(input)),
  replay: ownerProcedure
    .input(z.object({ policy: z.unknown(), limit: z.number().int().min(1).max(500).default(50) }))
    .mutation(({ ctx, input }) => ctx.services.firewall.replay(input.policy, input.limit)),
});

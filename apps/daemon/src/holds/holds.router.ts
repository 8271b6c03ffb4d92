/** Owner API for held items: list (trust and firewall holds, with guidance and audit), release, discard. */
import * as z from "zod";
import { ownerProcedure, router } from "../owner/trpc.js";

const ByHold = z.object({ holdId: z.number().int().positive() });

export const holdsRouter = router({
  list: ownerProcedure.query(async ({ ctx }) => ({ holds: await ctx.services.holds.list() })),
  release: ownerProcedure.input(ByHold).mutation(({ ctx, input }) => ctx.services.holds.release(input.holdId)),
  discard: ownerProcedure.input(ByHold).mutation(({ ctx, input }) => ctx.services.holds.discard(input.holdId)),
});

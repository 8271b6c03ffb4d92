/** Owner API for history: the agent's conversations and their certified records, cursor-paged. */
import * as z from "zod";
import { ownerProcedure, router } from "../owner/trpc.js";

export const historyRouter = router({
  conversations: ownerProcedure
    .input(
      z
        .object({ after: z.string().optional(), limit: z.number().int().min(1).max(200).default(50) })
        .default({ limit: 50 }),
    )
    .query(({ ctx, input }) => ctx.services.history.conversations(input)),
  records: ownerProcedure
    .input(
      z.object({
        conversation: z.string(),
        after: z.number().int().nonnegative().default(0),
        limit: z.number().int().min(1).max(200).default(50),
      }),
    )
    .query(({ ctx, input }) => ctx.services.history.records(input)),
});

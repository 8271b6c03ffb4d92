/** Owner API for history: the agent's conversations and their certified records, cursor-paged. */
import * as z from "zod";
import { ownerProcedure, router } from "../owner/trpc.js";
import { exportRecord } from "./history-export.js";
import { toStoredRecord } from "./history.store.js";

export const historyRouter = router({
  conversations: ownerProcedure
    .input(
      z
        .object({ after: z.string().optional(), limit: z.number().int().min(1).max(200).default(50) })
        .default({ limit: 50 }),
    )
    .query(async ({ ctx, input }) => {
      let query = ctx.services.store.db
        .selectFrom("conversations")
        .leftJoin("records", (join) =>
          join
            .onRef("records.conv", "=", "conversations.conv")
            .onRef("records.seq", "=", "conversations.contiguous_seq"),
        )
        .select([
          "conversations.conv as conv",
          "conversations.members as members",
          "conversations.contiguous_seq as seq",
          "records.at as lastAt",
        ]);
      if (input.after !== undefined) query = query.where("conversations.conv", ">", input.after);
      const rows = await query
        .orderBy("conversations.conv")
        .limit(input.limit + 1)
        .execute();
      const page = rows.slice(0, input.limit);
      return {
        conversations: page.map((r) => ({
          conversation: r.conv,
          members: (JSON.parse(r.members) as string[]).map((m) => `agent:${m}`),
          records: r.seq,
          lastAt: r.lastAt ?? null,
        })),
        nextCursor: rows.length > input.limit ? page.at(-1)?.conv : undefined,
      };
    }),
  records: ownerProcedure
    .input(
      z.object({
        conversation: z.string(),
        after: z.number().int().nonnegative().default(0),
        limit: z.number().int().min(1).max(200).default(50),
      }),
    )
    .query(async ({ ctx, input }) => {
      const rows = await ctx.services.store.db
        .selectFrom("records")
        .selectAll()
        .where("conv", "=", input.conversation)
        .where("seq", ">", input.after)
        .orderBy("seq")
        .limit(input.limit + 1)
        .execute();
      const page = rows.slice(0, input.limit);
      return {
        records: page.map((row) => exportRecord(toStoredRecord(row))),
        nextCursor: rows.length > input.limit ? page.at(-1)?.seq : undefined,
      };
    }),
});

/** Owner API for the Overview: every chart's series and the conversation map over one window. */
import { ownerProcedure, router } from "../owner/trpc.js";
import { OverviewInput } from "./overview.schema.js";

export const overviewRouter = router({
  summary: ownerProcedure.input(OverviewInput).query(({ ctx, input }) => ctx.services.overview.summary(input.window)),
});

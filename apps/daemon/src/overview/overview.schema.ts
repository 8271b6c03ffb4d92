/** Inputs of the owner's Overview: the window it covers (last hour, day or week). */
import * as z from "zod";

export const OverviewWindowSchema = z.enum(["hour", "day", "week"]);
export type OverviewWindow = z.infer<typeof OverviewWindowSchema>;

export const OverviewInput = z.object({ window: OverviewWindowSchema.default("hour") }).default({ window: "hour" });

/**
 * A record just committed reaches every router's links through the bus (SPEC §5): published once,
 * after its author has its answer, and not again for a retry that found it already certified.
 */
import type { AppendContext, AppendOutcome } from "./append.service.js";

/** Tells every router's links of a record just committed (after its author has its answer). */
export function publishCommitted(ctx: AppendContext, outcome: AppendOutcome): void {
  if (outcome.kind === "certified" && !outcome.existed) {
    ctx.bus.publish({ type: "record", body: { conv: outcome.record.conv, seq: outcome.record.seq } });
  }
}

/**
 * tRPC for the owner API (SPEC §11): every procedure requires the owner token. The context holds
 * the daemon's services; procedures stay thin and call one service method each, and domain
 * failures become tRPC errors in one place (owner/errors.ts).
 */
import { initTRPC, TRPCError } from "@trpc/server";
import type { Principal } from "../identity/identity.js";
import { ownerErrorOf, policyIssuesOf } from "./errors.js";
import type { OwnerServices } from "./services.js";

export interface OwnerContext {
  readonly principal: Principal | undefined;
  readonly services: OwnerServices;
}

const t = initTRPC.context<OwnerContext>().create({
  isDev: false,
  errorFormatter: ({ shape, error }) => {
    const issues = policyIssuesOf(error.cause);
    return issues === undefined ? shape : { ...shape, data: { ...shape.data, issues } };
  },
});

export const router = t.router;

/** A procedure only the owner may call. */
export const ownerProcedure = t.procedure
  .use(({ ctx, next }) => {
    if (ctx.principal !== "owner")
      throw new TRPCError({ code: "UNAUTHORIZED", message: "the owner token is required" });
    return next({ ctx: { services: ctx.services } });
  })
  .use(async ({ ctx, next }) => {
    const result = await next();
    // What the owner is told has happened (trust, a release, a policy) is on disk first.
    await ctx.services.durable();
    if (result.ok) return result;
    throw ownerErrorOf(result.error.cause) ?? result.error;
  });

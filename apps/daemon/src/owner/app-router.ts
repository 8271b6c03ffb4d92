/** The owner API's root router. The console imports `type AppRouter` from here, and only that. */
import { historyRouter } from "../history/history.router.js";
import { inboxRouter } from "../inbox/inbox.router.js";
import { holdsRouter, trustRouter } from "../trust/trust.router.js";
import { subscriptionsRouter } from "../webhooks/webhooks.router.js";
import { ownerProcedure, router } from "./trpc.js";

export const appRouter = router({
  status: ownerProcedure.query(async ({ ctx }) => ({
    name: ctx.services.name,
    link: ctx.services.linkState(),
    linkRefusal: ctx.services.linkRefusal() ?? null,
    pendingCount: await ctx.services.inbox.pendingCount(),
    trustPolicy: ctx.services.trust.policy,
  })),
  inbox: inboxRouter,
  history: historyRouter,
  trust: trustRouter,
  holds: holdsRouter,
  subscriptions: subscriptionsRouter,
});

export type AppRouter = typeof appRouter;

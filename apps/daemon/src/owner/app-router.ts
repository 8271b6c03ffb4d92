/** The owner API's root router. The console imports `type AppRouter` from here, and only that. */
import { historyRouter } from "../history/history.router.js";
import { inboxRouter } from "../inbox/inbox.router.js";
import { firewallRouter } from "../firewall/firewall.router.js";
import { holdsRouter } from "../holds/holds.router.js";
import { overviewRouter } from "../overview/overview.router.js";
import { trustRouter } from "../trust/trust.router.js";
import { subscriptionsRouter } from "../webhooks/webhooks.router.js";
import { ownerProcedure, router } from "./trpc.js";

export const appRouter = router({
  status: ownerProcedure.query(async ({ ctx }) => ({
    name: ctx.services.name,
    link: ctx.services.linkState(),
    linkRefusal: ctx.services.linkRefusal() ?? null,
    pendingCount: await ctx.services.inbox.pendingCount(),
    heldCount: await ctx.services.holds.openCount(),
    webhooks: await ctx.services.subscriptions.troubled(),
    trustPolicy: ctx.services.trust.policy,
    firewall: { mode: ctx.services.firewall.get().policy.mode, revision: ctx.services.firewall.get().revision },
  })),
  inbox: inboxRouter,
  history: historyRouter,
  trust: trustRouter,
  holds: holdsRouter,
  firewall: firewallRouter,
  subscriptions: subscriptionsRouter,
  overview: overviewRouter,
});

export type AppRouter = typeof appRouter;

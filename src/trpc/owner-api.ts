/**
 * Types of the daemon's owner API as the console sees them, inferred from its router (the
 * console imports the router's type only, never its code).
 */
import type { AppRouter } from "@social-harness/daemon/owner-router";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";

export type { AppRouter };
export type OwnerOutputs = inferRouterOutputs<AppRouter>;
export type OwnerInputs = inferRouterInputs<AppRouter>;
export type DaemonStatus = OwnerOutputs["status"];
export type InboxPage = OwnerOutputs["inbox"]["list"];
export type InboxEntry = InboxPage["items"][number];
export type InboundItem = InboxEntry["item"];
export type LocalGuidance = NonNullable<InboxEntry["guidance"]>;
export type SubscriptionStatus = OwnerOutputs["subscriptions"]["list"]["subscriptions"][number];
export type TrustList = OwnerOutputs["trust"]["list"];
export type TrustPolicy = TrustList["policy"];
export type HeldItem = OwnerOutputs["holds"]["list"]["holds"][number];
export type HistoryConversation = OwnerOutputs["history"]["conversations"]["conversations"][number];
export type HistoryRecord = OwnerOutputs["history"]["records"]["records"][number];
export type CheckedGuidance = Extract<LocalGuidance, { checkId: string }>;
export type FirewallState = OwnerOutputs["firewall"]["get"];
export type FirewallPolicy = FirewallState["policy"];
export type FirewallMode = FirewallPolicy["mode"];
export type PolicyRevision = OwnerOutputs["firewall"]["revisions"]["revisions"][number];
export type FirewallCheck = OwnerOutputs["firewall"]["checks"]["checks"][number];
export type MiddlewareVerdict = FirewallCheck["middlewares"][number];
export type CheckSubject = FirewallCheck["subjects"][number];
export type FirewallDecision = FirewallCheck["decision"];
export type CheckOutcome = FirewallCheck["outcome"];
export type ReplayResult = OwnerOutputs["firewall"]["replay"];
export type ReplayEntry = ReplayResult["entries"][number];
export type HoldSource = HeldItem["source"];
export type OverviewSummary = OwnerOutputs["overview"]["summary"];

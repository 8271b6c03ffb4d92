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

/**
 * The traffic of every trial, fresh for each trial (kinds keep state: an open gather, a receiver).
 * A new kind goes here; the trial, the checks and the report pick it up.
 */
import { firewallHoldKind } from "./kinds/firewall-hold.js";
import { gatherKind } from "./kinds/gather.js";
import { directKind, groupKind } from "./kinds/multicast.js";
import { webhookKind } from "./kinds/webhook.js";
import type { TrafficKind } from "./traffic.js";

/** The agent whose host sends the traffic. */
export const SENDER = "alice";

export function trafficKinds(): TrafficKind[] {
  return [directKind("bob"), groupKind(), gatherKind(SENDER), webhookKind("dave"), firewallHoldKind("erin")];
}

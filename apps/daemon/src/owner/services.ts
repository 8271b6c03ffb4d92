/** The services the owner API reaches, as types only (the console imports these types). */
import type { Firewall } from "../firewall/firewall.service.js";
import type { History } from "../history/history.service.js";
import type { Holds } from "../holds/holds.service.js";
import type { Inbox } from "../inbox/inbox.service.js";
import type { Admission } from "../ingress/admission.js";
import type { Overview } from "../overview/overview.service.js";
import type { LinkRefused } from "../router-link/router-link.js";
import type { Trust } from "../trust/trust.service.js";
import type { Subscriptions } from "../webhooks/subscriptions.service.js";

export interface OwnerServices {
  readonly name: string;
  readonly inbox: Inbox;
  readonly trust: Trust;
  readonly admission: Admission;
  readonly holds: Holds;
  readonly history: History;
  readonly firewall: Firewall;
  readonly subscriptions: Subscriptions;
  readonly overview: Overview;
  readonly linkState: () => string;
  /** Why the router refused the link, while it does (e.g. not-registered with admission's reason). */
  readonly linkRefusal: () => LinkRefused | undefined;
  /** Whether the router knows an agent of this name; null when the router could not say in time. */
  readonly registered: (name: string) => Promise<boolean | null>;
  /** Resolves once every durable commit so far is on disk; each answer waits for it. */
  readonly durable: () => Promise<void>;
}

/** The services the owner API reaches, as types only (the console imports these types). */
import type { History } from "../history/history.service.js";
import type { Inbox } from "../inbox/inbox.service.js";
import type { LinkRefused } from "../router-link/router-link.js";
import type { DaemonStore } from "../db/database.js";
import type { Trust } from "../trust/trust.service.js";
import type { Subscriptions } from "../webhooks/subscriptions.service.js";

export interface OwnerServices {
  readonly name: string;
  readonly store: DaemonStore;
  readonly inbox: Inbox;
  readonly trust: Trust;
  readonly history: History;
  readonly subscriptions: Subscriptions;
  readonly linkState: () => string;
  /** Why the router refused the link, while it does (e.g. not-registered with admission's reason). */
  readonly linkRefusal: () => LinkRefused | undefined;
}

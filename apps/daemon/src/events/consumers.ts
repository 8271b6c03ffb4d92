/**
 * One consumer owns the inbox at a time (seed 000): a push stream or a webhook subscription. A new
 * push stream replaces an older one (a reattaching client must not be locked out by its own dead
 * stream), and the older stream is terminated. A webhook registration — active or suspended — owns
 * the inbox until it is revoked or its lease expires; meanwhile push streams and other subscriptions
 * are refused, and while a push stream is open a webhook subscription is refused. Release is by
 * lease, so a cancelled consumer's late cleanup can never release its replacement.
 */
import { randomUUID } from "node:crypto";

export type ConsumerKind = "push" | "webhook";

export interface ConsumerClaim {
  readonly kind: ConsumerKind;
  /** The webhook subscription id, or a fresh id per push stream. */
  readonly key: string;
  /** Called when a newer push stream replaces this one. */
  readonly onReplaced?: () => void;
  /** A webhook's lease expiry (epoch ms, read each time: refreshes extend it). */
  readonly expiresAt?: () => number;
  /** Called when an expired claim is dropped. */
  readonly onLapsed?: () => void;
}

export type ClaimResult =
  { readonly ok: true; readonly lease: string } | { readonly ok: false; readonly owner: ConsumerKind };

export interface ConsumerOwner {
  readonly kind: ConsumerKind;
  readonly key: string;
  readonly lease: string;
}

type Owner = ConsumerOwner & Pick<ConsumerClaim, "onReplaced" | "expiresAt" | "onLapsed">;

export class InboxConsumers {
  private owner: Owner | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** The owner, once an expired lease has been let go. */
  private live(): Owner | undefined {
    const owner = this.owner;
    if (owner?.expiresAt !== undefined && owner.expiresAt() <= this.now()) {
      this.owner = undefined;
      owner.onLapsed?.();
      return undefined;
    }
    return owner;
  }

  claim(claim: ConsumerClaim): ClaimResult {
    const current = this.live();
    if (current !== undefined) {
      const sameWebhook = current.kind === "webhook" && claim.kind === "webhook" && current.key === claim.key;
      if (sameWebhook) return { ok: true, lease: current.lease };
      if (!(current.kind === "push" && claim.kind === "push")) return { ok: false, owner: current.kind };
      current.onReplaced?.();
    }
    const lease = randomUUID();
    this.owner = { ...claim, lease };
    return { ok: true, lease };
  }

  /** Releases the inbox if `lease` still owns it; a stale lease releases nothing. */
  release(lease: string): boolean {
    if (this.owner?.lease !== lease) return false;
    this.owner = undefined;
    return true;
  }

  current(): ConsumerOwner | undefined {
    return this.owner === undefined
      ? undefined
      : { kind: this.owner.kind, key: this.owner.key, lease: this.owner.lease };
  }
}

/**
 * What posts need of the firewall on the send path (seed 001 "Stock host projection"): a check
 * after exact membership resolution and before binding, which captures the evidence it saw (the
 * conversation heads and the policy revision); binding confirms that capture in the intent's own
 * transaction, or finds it stale. One stale capture is checked again; a second is held in
 * `enforce` and, in `guidance`, recorded and allowed without stale advice.
 */
import type { CheckedGuidance } from "@social-harness/protocol";
import type { Trx } from "../db/database.js";

export interface OutboundSubject {
  /** The PostId of a multicast or answer, the CollectiveId of a request. */
  readonly id: string;
  readonly kind: "multicast" | "collectiveRequest" | "answer";
  /** The canonical address the agent sent to. */
  readonly conversation: string;
  readonly recipients: readonly string[];
  readonly text: string;
}

/** A settled assessment and what it saw; opaque to posts but for its guidance. */
export interface Capture {
  readonly checkId: string;
  /** Set when a norm judgment of the admitted send was left uncertain (SendResult.guidance). */
  readonly guidance: CheckedGuidance | undefined;
}

export interface SendCheck {
  /**
   * Checks a send; undefined when the policy checks no sends. A send refused or held in `enforce`
   * throws FirewallSendError, with the check recorded. `after` is the stale capture it replaces.
   */
  capture(subject: OutboundSubject, convs: readonly string[], after?: Capture): Promise<Capture | undefined>;
  /**
   * Inside the intent's transaction: records the check beside the intents and returns true, or
   * returns false when what the capture saw has changed. `force` records a stale capture anyway
   * (guidance mode, second stale capture) and drops its advice.
   */
  confirm(trx: Trx, capture: Capture, postIds: readonly string[], force: boolean): Promise<boolean>;
  /** Records a capture found stale twice and throws FirewallSendError (refusal held); enforce mode. */
  refuseStale(capture: Capture): Promise<never>;
  /** True when a second stale capture is allowed (guidance mode) rather than held. */
  allowsStale(capture: Capture): boolean;
}

/**
 * The closed errors of HarnessEndpoint (seed 003 "Closed failures") as Effect tagged errors, and
 * the one place that rebuilds them from the data of a refused MCP call (seed 001 "MCP adapter
 * projection"). Refusal data this release cannot read becomes outcome-unknown for a send, since
 * the daemon may have acted on the request.
 */
import { Data } from "effect";
import {
  describeCollectiveFailure,
  LookupErrorDataSchema,
  SendRefusalDataSchema,
  type FirewallRefusal,
  type MessageTextField,
  type SendErrorReason,
} from "@social-harness/protocol";
import type { AgentAddress, CollectiveId } from "./types.js";

export type { FirewallRefusal, MessageTextField, SendErrorReason };

/** Why a collective send or answer was refused; nothing was sent. */
export type CollectiveFailure =
  | {
      readonly kind: "members-unreachable";
      /** Each member with the bare SendError reason, and what happened in `detail`. */
      readonly members: readonly {
        readonly member: AgentAddress;
        readonly reason: SendErrorReason;
        readonly detail?: string;
      }[];
    }
  | { readonly kind: "no-open-request" }
  | { readonly kind: "several-open-requests"; readonly requests: readonly CollectiveId[] };

/**
 * A send the daemon refused or could not complete, with one of the 11 closed reasons of seed 003.
 * `outcome-unknown` means the message may have been sent; `delivery-pending` means it will still
 * be sent; `network-unavailable` means nothing can have been sent. `cause` keeps the underlying
 * failure when the client, not the daemon, decided the reason.
 */
export class SendError extends Data.TaggedError("SendError")<{
  readonly reason: SendErrorReason;
  readonly detail?: string;
  readonly cause?: unknown;
}> {
  override get message(): string {
    return this.detail === undefined ? this.reason : `${this.reason}: ${this.detail}`;
  }
}

/** A gather, all_gather or answer refused before anything was posted (seed 003 "Operations"). */
export class CollectiveError extends Data.TaggedError("CollectiveError")<{
  readonly id?: CollectiveId;
  readonly failure: CollectiveFailure;
}> {
  override get message(): string {
    return describeCollectiveFailure(this.failure);
  }
}

/** The local message firewall refused or held the send; `checkId` names the retained check. */
export class FirewallSendError extends Data.TaggedError("FirewallSendError")<{
  readonly checkId: string;
  readonly refusal: FirewallRefusal;
  readonly feedback: string;
}> {
  override get message(): string {
    return `the local firewall ${this.refusal === "unavailable" ? "was unavailable" : this.refusal} (${this.checkId}): ${this.feedback}`;
  }
}

/**
 * Why the inbound stream stopped:
 * - `unauthorized`: the daemon refused the runtime token (HTTP 401 or 403);
 * - `unreachable`: the endpoint's scope is closed, or a daemon read by polling (one without MCP
 *   Events) could not be reached or did not answer within the request timeout; a push stream
 *   keeps reattaching to a daemon that is away instead;
 * - `consumer-taken`: another consumer owns the daemon's inbox (seed 000: one push or webhook
 *   consumer at a time): a webhook subscription refused the push stream, or a newer stream
 *   replaced this one;
 * - `invalid-response`: the daemon answered with an error or a page this client cannot read.
 */
export type ListenErrorReason = "unauthorized" | "unreachable" | "consumer-taken" | "invalid-response";

/** The stream of inbound deliveries failed; items not yet acknowledged stay pending. */
export class ListenError extends Data.TaggedError("ListenError")<{
  readonly reason: ListenErrorReason;
  readonly detail?: string;
  readonly cause?: unknown;
}> {
  override get message(): string {
    return this.detail === undefined ? this.reason : `${this.reason}: ${this.detail}`;
  }
}

/**
 * Why an acknowledgment failed:
 * - `unknown-delivery`: the daemon holds no delivery with this token;
 * - `unauthorized`: the daemon refused the runtime token (HTTP 401 or 403);
 * - `unreachable`: the daemon could not be reached or did not answer; acknowledging again is safe,
 *   since acknowledging a retired token succeeds;
 * - `invalid-response`: the daemon answered with an error or a result this client cannot read.
 */
export type DeliveryAcknowledgeErrorReason = "unknown-delivery" | "unauthorized" | "unreachable" | "invalid-response";

/** Acknowledging a delivery failed; unless it was retired, the item stays pending. */
export class DeliveryAcknowledgeError extends Data.TaggedError("DeliveryAcknowledgeError")<{
  readonly reason: DeliveryAcknowledgeErrorReason;
  readonly detail?: string;
  readonly cause?: unknown;
}> {
  override get message(): string {
    return this.detail === undefined ? this.reason : `${this.reason}: ${this.detail}`;
  }
}

/**
 * Why the endpoint could not be acquired:
 * - `unauthorized`: no runtime token was given, or the daemon refused it (HTTP 401 or 403);
 * - `unreachable`: nothing answered at the URL, or the daemon failed or timed out while connecting;
 * - `incompatible`: something answered, but not a Social Harness daemon's MCP endpoint this client
 *   can use (no MCP, no shared protocol version, or a missing runtime tool).
 */
export type ConnectErrorReason = "unauthorized" | "unreachable" | "incompatible";

/** Acquiring the HarnessEndpoint failed; nothing was sent. */
export class ConnectError extends Data.TaggedError("ConnectError")<{
  readonly reason: ConnectErrorReason;
  readonly detail?: string;
  readonly cause?: unknown;
}> {
  override get message(): string {
    return this.detail === undefined ? this.reason : `${this.reason}: ${this.detail}`;
  }
}

/** A message text that reads as a malformed operation; `fields` names each failing field. */
export class MessageTextError extends Data.TaggedError("MessageTextError")<{
  readonly message: string;
  readonly fields: readonly MessageTextField[];
}> {}

/**
 * Rebuilds the typed error of a send from the data of its -32030 refusal. Data this release
 * cannot read is outcome-unknown: the daemon answered, but the client cannot tell what it did.
 */
export function sendErrorFromRefusal(data: unknown): SendError | CollectiveError | FirewallSendError {
  const parsed = SendRefusalDataSchema.safeParse(data);
  if (!parsed.success) {
    return new SendError({
      reason: "outcome-unknown",
      detail: `the daemon refused the send with data this client cannot read: ${JSON.stringify(data)}`,
    });
  }
  const refusal = parsed.data;
  switch (refusal.reason) {
    case "collective-failed":
      return new CollectiveError(
        refusal.id === undefined ? { failure: refusal.failure } : { id: refusal.id, failure: refusal.failure },
      );
    case "firewall-refused":
      return new FirewallSendError({ checkId: refusal.checkId, refusal: refusal.refusal, feedback: refusal.feedback });
    case "invalid-address":
    case "unknown-agent":
    case "membership-invalid":
    case "content-invalid":
    case "not-registered":
    case "version-mismatch":
    case "certification-unavailable":
    case "persistence-failed":
    case "network-unavailable":
    case "delivery-pending":
    case "outcome-unknown":
      return new SendError(
        refusal.detail === undefined ? { reason: refusal.reason } : { reason: refusal.reason, detail: refusal.detail },
      );
  }
}

/** Rebuilds the typed error of an acknowledgment from the data of its -32030 refusal. */
export function acknowledgeErrorFromRefusal(data: unknown): DeliveryAcknowledgeError {
  const parsed = LookupErrorDataSchema.safeParse(data);
  if (!parsed.success) {
    return new DeliveryAcknowledgeError({
      reason: "invalid-response",
      detail: `the daemon refused the acknowledgment with data this client cannot read: ${JSON.stringify(data)}`,
    });
  }
  switch (parsed.data.reason) {
    case "unknown-delivery":
      return new DeliveryAcknowledgeError({
        reason: "unknown-delivery",
        detail: parsed.data.detail ?? "the daemon holds no delivery with this token",
      });
    case "unknown-event":
      return new DeliveryAcknowledgeError({
        reason: "invalid-response",
        detail: "the daemon answered an acknowledgment with unknown-event",
      });
  }
}

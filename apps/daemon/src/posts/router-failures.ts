/**
 * How the router's answers become the closed SendError reasons of seed 003: a failure before
 * anything was bound (nothing can have been sent), and a refused proposal.
 */
import type { SendErrorReason } from "@social-harness/protocol";
import type { ProposalAnswer, RouterFailure } from "./router-port.js";
import { SendError } from "./send-error.js";

/** A router failure before anything was bound: nothing can have been sent. */
export function unboundFailure(failure: RouterFailure, lost: string): SendError {
  if (failure.kind === "lost") return new SendError("network-unavailable", lost);
  switch (failure.state) {
    case "not-registered": {
      const refusal = failure.refusal;
      return new SendError(
        "not-registered",
        refusal === undefined
          ? "the router refused this agent's identity"
          : `the router refused this agent (${refusal.admission ?? refusal.reason}): ${refusal.detail}`,
      );
    }
    case "version-mismatch":
      return new SendError("version-mismatch", "the router speaks another protocol version");
    case "router-untrusted":
      return new SendError("network-unavailable", "the router's key differs from the pinned one");
    case "connecting":
    case "offline":
      return new SendError("network-unavailable", "the router is unreachable");
  }
}

export function refusalReason(answer: Extract<ProposalAnswer, { t: "refused" }>): SendErrorReason {
  switch (answer.reason) {
    case "unknown-agent":
      return "unknown-agent";
    case "content-invalid":
      return "content-invalid";
    case "not-member":
      return "membership-invalid";
    case "certification-unavailable":
    case "no-conversation":
      return "certification-unavailable";
    case "version-mismatch":
      return "version-mismatch";
    case "name-taken":
    case "not-admitted":
    case "not-authenticated":
    case "invalid-key":
      return "not-registered";
    case "bad-signature":
    case "malformed":
    case "internal":
      return "outcome-unknown";
  }
}

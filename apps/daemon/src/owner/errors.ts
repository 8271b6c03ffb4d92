/**
 * The one place domain failures become owner API (tRPC) errors, as mcp/refusals.ts is for MCP.
 * Every procedure runs through this mapping; anything unmapped stays an internal error that keeps
 * its cause for the log.
 */
import { TRPCError } from "@trpc/server";
import { FirewallPolicyError } from "../firewall/policy.service.js";
import { HoldError } from "../holds/holds.service.js";
import { InboxError } from "../inbox/inbox.service.js";
import { SubscriptionOwnerError } from "../webhooks/webhooks.schema.js";

export function ownerErrorOf(error: unknown): TRPCError | undefined {
  if (error instanceof InboxError) {
    switch (error.reason) {
      case "unknown-delivery":
      case "unknown-event":
        return new TRPCError({ code: "NOT_FOUND", message: error.message, cause: error });
      case "invalid-cursor":
        return new TRPCError({ code: "BAD_REQUEST", message: error.message, cause: error });
    }
  }
  if (error instanceof SubscriptionOwnerError) {
    switch (error.reason) {
      case "unknown-subscription":
        return new TRPCError({ code: "NOT_FOUND", message: error.message, cause: error });
      case "revoked":
      case "terminal":
        return new TRPCError({ code: "PRECONDITION_FAILED", message: error.message, cause: error });
    }
  }
  if (error instanceof FirewallPolicyError)
    return new TRPCError({ code: "BAD_REQUEST", message: error.message, cause: error });
  if (error instanceof HoldError) {
    switch (error.reason) {
      case "unknown-hold":
        return new TRPCError({ code: "NOT_FOUND", message: error.message, cause: error });
      case "not-held":
        return new TRPCError({ code: "PRECONDITION_FAILED", message: error.message, cause: error });
    }
  }
  return undefined;
}

/** Field-named issues of a refused policy, for the console to show beside each field. */
export function policyIssuesOf(error: unknown): readonly { path: string; message: string }[] | undefined {
  return error instanceof FirewallPolicyError ? error.issues : undefined;
}

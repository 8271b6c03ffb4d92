import { describe, expect, it } from "vitest";
import { SEND_ERROR_REASONS } from "@social-harness/protocol";
import {
  acknowledgeErrorFromRefusal,
  CollectiveError,
  DeliveryAcknowledgeError,
  FirewallSendError,
  SendError,
  sendErrorFromRefusal,
} from "./errors.js";

const checkId = "chk_" + "A".repeat(43);
const operationId = "col_" + "B".repeat(43);

describe("sendErrorFromRefusal", () => {
  it.each(SEND_ERROR_REASONS)("rebuilds SendError %s with its detail", (reason) => {
    const error = sendErrorFromRefusal({ reason, detail: "because" });
    expect(error).toBeInstanceOf(SendError);
    expect(error).toMatchObject({ _tag: "SendError", reason, detail: "because" });
  });

  it("rebuilds a SendError without a detail when the data has none", () => {
    const error = sendErrorFromRefusal({ reason: "unknown-agent" });
    expect(error).toEqual(new SendError({ reason: "unknown-agent" }));
    expect("detail" in error).toBe(false);
  });

  it("rebuilds a members-unreachable CollectiveError naming each member", () => {
    const failure = {
      kind: "members-unreachable",
      members: [
        { member: "agent:bob", reason: "unknown-agent" },
        { member: "agent:carol", reason: "certification-unavailable" },
      ],
    } as const;
    const error = sendErrorFromRefusal({ reason: "collective-failed", id: operationId, failure });
    expect(error).toBeInstanceOf(CollectiveError);
    expect(error).toEqual(new CollectiveError({ id: operationId, failure }));
  });

  it("rebuilds a no-open-request CollectiveError without an id", () => {
    const error = sendErrorFromRefusal({ reason: "collective-failed", failure: { kind: "no-open-request" } });
    expect(error).toEqual(new CollectiveError({ failure: { kind: "no-open-request" } }));
    expect("id" in error).toBe(false);
  });

  it("rebuilds a several-open-requests CollectiveError naming the requests", () => {
    const requests = [operationId, "col_" + "C".repeat(43)];
    const error = sendErrorFromRefusal({
      reason: "collective-failed",
      failure: { kind: "several-open-requests", requests },
    });
    expect(error).toEqual(new CollectiveError({ failure: { kind: "several-open-requests", requests } }));
  });

  it.each(["refused", "held", "unavailable"] as const)(
    "rebuilds a FirewallSendError whose refusal is %s",
    (refusal) => {
      const error = sendErrorFromRefusal({ reason: "firewall-refused", checkId, refusal, feedback: "be kind" });
      expect(error).toBeInstanceOf(FirewallSendError);
      expect(error).toEqual(new FirewallSendError({ checkId, refusal, feedback: "be kind" }));
    },
  );

  it("ignores fields this release does not name", () => {
    expect(sendErrorFromRefusal({ reason: "delivery-pending", detail: "queued", retryAfter: 5 })).toEqual(
      new SendError({ reason: "delivery-pending", detail: "queued" }),
    );
  });

  it.each([
    ["an unknown reason", { reason: "sent-to-the-moon" }],
    ["no data", undefined],
    ["a collective failure of an unknown kind", { reason: "collective-failed", failure: { kind: "lost" } }],
    ["a firewall refusal without its check", { reason: "firewall-refused", refusal: "held", feedback: "" }],
  ])("reads %s as outcome-unknown", (_, data) => {
    const error = sendErrorFromRefusal(data);
    expect(error).toBeInstanceOf(SendError);
    expect(error).toMatchObject({ reason: "outcome-unknown" });
  });
});

describe("acknowledgeErrorFromRefusal", () => {
  it("rebuilds unknown-delivery", () => {
    const error = acknowledgeErrorFromRefusal({ reason: "unknown-delivery" });
    expect(error).toBeInstanceOf(DeliveryAcknowledgeError);
    expect(error.reason).toBe("unknown-delivery");
  });

  it.each([[{ reason: "unknown-event" }], [{ reason: "nope" }], [null]])("reads %j as invalid-response", (data) => {
    expect(acknowledgeErrorFromRefusal(data).reason).toBe("invalid-response");
  });
});

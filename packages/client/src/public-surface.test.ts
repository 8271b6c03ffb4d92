import { describe, expect, it } from "vitest";
import * as client from "./index.js";

describe("the public surface", () => {
  it("exports exactly the values of the HarnessEndpoint contract and nothing retired", () => {
    expect(Object.keys(client).sort()).toEqual(
      [
        "CollectiveError",
        "ConnectError",
        "DeliveryAcknowledgeError",
        "FirewallSendError",
        "ListenError",
        "MessageTextError",
        "SendError",
        "TOKEN_ENV",
        "acquireHarnessEndpoint",
        "forEachDelivery",
        "parseMessageText",
      ].sort(),
    );
    // No turn grants, conversation identities, inherited targets or proof-shaped results.
    for (const name of Object.keys(client))
      expect(name).not.toMatch(/turn|grant|conversation|receipt|proof|reply|target/i);
  });
});

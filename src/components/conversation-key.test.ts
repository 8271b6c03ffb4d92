import { describe, expect, it } from "vitest";
import { conversationKeyOf } from "./conversation-key";

describe("conversation keys for firewall subjects", () => {
  it("names an inbound direct conversation by its key, not the sender's address", () => {
    expect(conversationKeyOf({ sender: "agent:carol", recipients: ["agent:erin"], conversation: "agent:carol" })).toBe(
      "direct:carol,erin",
    );
  });

  it("names an outbound direct conversation by its key", () => {
    expect(conversationKeyOf({ sender: "agent:erin", recipients: ["agent:alice"], conversation: "agent:alice" })).toBe(
      "direct:alice,erin",
    );
  });

  it("keeps a group address, which is already the key", () => {
    const group = "group:alice,bob,erin";
    expect(
      conversationKeyOf({ sender: "agent:bob", recipients: ["agent:alice", "agent:erin"], conversation: group }),
    ).toBe(group);
  });
});

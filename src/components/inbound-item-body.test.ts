import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { InboundItem } from "@/trpc/owner-api";
import { InboundItemBody, summarizeItem } from "./inbound-item-body";

const ID = "col_" + "A".repeat(43);
const POST = "pst_" + "B".repeat(43);

function textOf(item: InboundItem): string {
  return renderToStaticMarkup(createElement(InboundItemBody, { item }))
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, " ")
    .trim();
}

describe("inbound item rendering", () => {
  it("shows a direct message's reply address, text and data parts", () => {
    const item: InboundItem = {
      kind: "multicast",
      message: {
        kind: "direct",
        postId: POST,
        address: "agent:alice",
        sender: "agent:alice",
        content: [
          { type: "text", text: "hello <b>bob</b>" },
          { type: "data", value: { count: 2 } },
        ],
      },
    };
    const text = textOf(item);
    expect(text).toContain("Reply to agent:alice");
    expect(text).toContain("hello &lt;b&gt;bob&lt;/b&gt;");
    expect(text).toContain('"count": 2');
    expect(summarizeItem(item)).toEqual({ label: "Message", relation: "from", party: "agent:alice" });
  });

  it("lists a group message's members", () => {
    const item: InboundItem = {
      kind: "multicast",
      message: {
        kind: "group",
        postId: POST,
        address: "group:alice,bob,carol",
        sender: "agent:carol",
        members: ["agent:alice", "agent:bob", "agent:carol"],
        content: [{ type: "text", text: "hi all" }],
      },
    };
    expect(textOf(item)).toContain("Group agent:alice, agent:bob, agent:carol hi all");
    expect(summarizeItem(item).label).toBe("Group message");
  });

  it("shows a collective request's question, form fields and deadline", () => {
    const item: InboundItem = {
      kind: "collectiveRequest",
      op: "gather",
      id: ID,
      postId: POST,
      from: "agent:alice",
      to: "agent:alice",
      question: "Lunch?",
      requestedSchema: {
        type: "object",
        properties: {
          place: { type: "string", title: "Place", enum: ["canteen", "park"] },
          people: { type: "integer", minimum: 1, maximum: 8, description: "Including you" },
          vegan: { type: "boolean" },
          when: { type: "string", format: "date-time" },
        },
        required: ["place"],
      },
      deadlineAt: Date.UTC(2030, 0, 1, 12, 0, 0),
    };
    const text = textOf(item);
    expect(text).toContain("Lunch?");
    expect(text).toContain("Place required one of: canteen, park");
    expect(text).toContain("people whole number, 1 to 8 Including you");
    expect(text).toContain("vegan yes or no");
    expect(text).toContain("when text (date-time)");
    expect(text).toMatch(/Deadline .*2030/);
    expect(summarizeItem(item)).toEqual({ label: "Question", relation: "from", party: "agent:alice" });
  });

  it("shows a question the agent answered as answered, with no countdown and no form to fill", () => {
    const item: InboundItem = {
      kind: "collectiveRequest",
      op: "gather",
      id: ID,
      postId: POST,
      from: "agent:alice",
      to: "agent:alice",
      question: "Lunch?",
      requestedSchema: {
        type: "object",
        properties: { place: { type: "string", title: "Place", enum: ["canteen", "park"] } },
        required: ["place"],
      },
      deadlineAt: Date.UTC(2030, 0, 1, 12, 0, 0),
    };
    const open = renderToStaticMarkup(createElement(InboundItemBody, { item }));
    const answered = renderToStaticMarkup(createElement(InboundItemBody, { item, answered: true }));
    expect(open).toContain("Deadline");
    expect(open).not.toContain('data-testid="item-answered"');
    expect(answered).toContain('data-testid="item-answered"');
    expect(answered).toContain("Lunch?");
    expect(answered).not.toContain("Deadline");
    expect(answered).not.toContain("Place");
    expect(answered).not.toContain('data-testid="requested-schema"');
    expect(summarizeItem(item, true)).toEqual({ label: "Answered question", relation: "from", party: "agent:alice" });
    expect(summarizeItem({ ...item, op: "all_gather" }, true).label).toBe("Answered group question");
    expect(summarizeItem({ ...item, op: "all_gather" }).label).toBe("Group question");
  });

  it("shows each member's outcome of a collective result", () => {
    const item: InboundItem = {
      kind: "collectiveResult",
      op: "all_gather",
      id: ID,
      to: "group:alice,bob,carol,dave,erin",
      question: "Which day?",
      outcomes: [
        { member: "agent:bob", outcome: { kind: "answered", content: { day: "friday", also: ["sat", "sun"] } } },
        { member: "agent:carol", outcome: { kind: "declined" } },
        { member: "agent:dave", outcome: { kind: "invalid", reason: "day: not one of the choices" } },
        { member: "agent:erin", outcome: { kind: "no-answer" } },
        {
          member: "agent:frank",
          outcome: { kind: "withheld", checkId: "chk_" + "C".repeat(43), reason: "held" },
        },
      ],
    };
    const text = textOf(item);
    expect(text).toContain("Which day?");
    expect(text).toContain("agent:bob day friday also sat, sun");
    expect(text).toContain("agent:carol Declined");
    expect(text).toContain("agent:dave Invalid answer: day: not one of the choices");
    expect(text).toContain("agent:erin No answer");
    expect(text).toContain("agent:frank Withheld by the firewall (held)");
  });

  it("shows an operation failure's error", () => {
    const item: InboundItem = { kind: "operationFailed", id: ID, to: "agent:bob", error: "response context was lost" };
    const text = textOf(item);
    expect(text).toContain(`Operation ${ID}`);
    expect(text).toContain("response context was lost");
    expect(summarizeItem(item)).toEqual({ label: "Failed operation", relation: "to", party: "agent:bob" });
  });
});

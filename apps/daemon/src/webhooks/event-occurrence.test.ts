import { randomBytes } from "node:crypto";
import { eventIdOf } from "@social-harness/protocol";
import { describe, expect, it } from "vitest";
import type { InboxRow } from "../inbox/inbox.store.js";
import { buildOccurrence, isoTimestamp } from "./event-occurrence.js";

const token = `dlv_${randomBytes(32).toString("base64url")}`;
const guidance = { checkId: `chk_${randomBytes(32).toString("base64url")}`, subjects: [], instructions: [] };

function rowWith(text: string, withGuidance = false): InboxRow {
  const item = JSON.stringify({
    kind: "multicast",
    message: {
      kind: "direct",
      postId: "pst_x",
      address: "agent:alice",
      sender: "agent:alice",
      content: [{ type: "text", text }],
    },
  });
  return {
    id: 1,
    token,
    kind: "multicast",
    item,
    guidance: withGuidance ? JSON.stringify(guidance) : null,
    size: item.length,
    conv: "direct:alice,bob",
    recordHash: null,
    state: "pending",
    createdAt: Date.parse("2026-11-30T12:00:00.000Z"),
    settledAt: null,
  };
}

describe("buildOccurrence", () => {
  it("carries the item and its guidance under evt_ + the token's 43 characters", () => {
    const { eventId, body } = buildOccurrence(rowWith("hello", true));
    expect(eventId).toBe(`evt_${token.slice(4)}`);
    expect(eventId).toBe(eventIdOf(token));
    expect(JSON.parse(body.toString("utf8"))).toEqual({
      eventId,
      name: "org.social-harness/inbox.item",
      timestamp: "2026-11-30T12:00:00.000Z",
      data: { kind: "item", item: expect.objectContaining({ kind: "multicast" }), guidance },
      cursor: null,
    });
    expect(JSON.parse(buildOccurrence(rowWith("hello")).body.toString("utf8")).data).not.toHaveProperty("guidance");
  });

  it("inlines an envelope of exactly 256 KiB and refers to one a byte larger", () => {
    const base = buildOccurrence(rowWith("")).body.length;
    // "é" is two UTF-8 bytes: the bound counts bytes, not characters.
    const exact = "é".repeat(Math.floor((262_144 - base) / 2)) + "x".repeat((262_144 - base) % 2);
    const inline = buildOccurrence(rowWith(exact)).body;
    expect(inline.length).toBe(262_144);
    expect(JSON.parse(inline.toString("utf8")).data.kind).toBe("item");
    const over = JSON.parse(buildOccurrence(rowWith(`${exact}x`)).body.toString("utf8"));
    expect(over.data).toEqual({ kind: "reference", itemKind: "multicast", bytes: 262_145 });
  });

  it("counts the guidance in the 256 KiB bound: an item that fits alone is referred to with its guidance", () => {
    const base = buildOccurrence(rowWith("")).body.length;
    const fits = "x".repeat(262_144 - base);
    expect(buildOccurrence(rowWith(fits)).body.length).toBe(262_144);
    const withGuidance = JSON.parse(buildOccurrence(rowWith(fits, true)).body.toString("utf8"));
    expect(withGuidance.data).toEqual({
      kind: "reference",
      itemKind: "multicast",
      bytes: 262_144 + buildOccurrence(rowWith("", true)).body.length - base,
    });
  });

  it("splices the stored item and guidance JSON in byte for byte, not a re-encoding of them", () => {
    // Keys in another order than the item schema's, and an escape JSON.stringify would not write:
    // a re-encoding of the parsed item would change both.
    const row = rowWith("spliced", true);
    const item = `{"message":{"content":[{"text":"sp\\u006ciced","type":"text"}],"sender":"agent:alice","address":"agent:alice","postId":"pst_x","kind":"direct"},"kind":"multicast"}`;
    const body = buildOccurrence({ ...row, item }).body.toString("utf8");
    expect(body).toContain(`"data":{"kind":"item","item":${item},"guidance":${row.guidance!}}`);
    expect(JSON.parse(body).data.item.message.content[0].text).toBe("spliced");
  });

  it("builds the same bytes every time for the same row", () => {
    expect(buildOccurrence(rowWith("same", true)).body.equals(buildOccurrence(rowWith("same", true)).body)).toBe(true);
  });
});

describe("isoTimestamp", () => {
  it("writes what Date.prototype.toISOString writes", () => {
    const edges = [
      0,
      1,
      999,
      86_399_999,
      86_400_000,
      Date.parse("1999-12-31T23:59:59.999Z"),
      Date.parse("2000-02-29T12:34:56.789Z"),
      Date.parse("2024-02-29T00:00:00.000Z"),
      Date.parse("2100-03-01T00:00:00.010Z"),
      Date.parse("9999-12-31T23:59:59.999Z"),
      Date.parse("1000-01-01T00:00:00.000Z"),
      -1,
      -62_135_596_800_000,
      253_402_300_800_000,
    ];
    const random = Array.from({ length: 20_000 }, () => Math.floor(Math.random() * 253_402_300_800_000));
    for (const ms of [...edges, ...random]) expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
  });
});

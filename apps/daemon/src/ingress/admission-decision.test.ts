import type { InboundItem } from "@social-harness/protocol";
import { describe, expect, it } from "vitest";
import type { Assessment } from "../firewall/engine.js";
import { decideAdmission, type AdmissionFacts, type AdmissionSubject } from "./admission-decision.js";

const item = { kind: "message", id: "m1" } as unknown as InboundItem;
const result = { kind: "collectiveResult", id: "r1" } as unknown as Extract<InboundItem, { kind: "collectiveResult" }>;
const answer = { id: "op1", member: "bob", conv: "c", hash: "h", response: { action: "decline" as const } };
const close = { record: { conv: "c", author: "alice" }, hash: "h2", part: {} } as never;
const guidance = { checkId: "chk", instructions: [] } as never;

function assessment(over: Partial<Assessment>): Assessment {
  return {
    checkId: "chk-1",
    direction: "inbound",
    subject: {} as never,
    revision: 1,
    mode: "enforce",
    decision: "allow",
    verdicts: [],
    guidance: undefined,
    feedback: "",
    latencyUs: 1,
    ...over,
  };
}

const facts = (subject: AdmissionSubject, over: Partial<AdmissionFacts> = {}): AdmissionFacts => ({
  subject,
  trusted: true,
  firewall: { state: "off" },
  untrustedReason: "bob is not trusted",
  ...over,
});

describe("decideAdmission", () => {
  it("holds an untrusted sender's item for the owner before any check", () => {
    expect(decideAdmission(facts({ kind: "item", item }, { trusted: false, firewall: { state: "pending" } }))).toEqual({
      kind: "hold",
      item,
      reason: "bob is not trusted",
      source: "trust",
    });
  });

  it("queues a trusted item while its check is pending and admits it when there is none", () => {
    expect(decideAdmission(facts({ kind: "item", item }, { firewall: { state: "pending" } }))).toEqual({
      kind: "queue",
    });
    expect(decideAdmission(facts({ kind: "item", item }))).toEqual({ kind: "admit", item });
  });

  it("holds an item the enforced check holds, with the rule's feedback, and admits a guidance-mode one", () => {
    const held = assessment({ decision: "hold", feedback: "no prices" });
    expect(
      decideAdmission(facts({ kind: "item", item }, { firewall: { state: "checked", assessment: held } })),
    ).toEqual({
      kind: "hold",
      item,
      reason: "no prices",
      source: "firewall",
      checkId: "chk-1",
    });
    const advised = assessment({ decision: "hold", mode: "guidance", guidance });
    expect(
      decideAdmission(facts({ kind: "item", item }, { firewall: { state: "checked", assessment: advised } })),
    ).toEqual({ kind: "admit", item, guidance });
  });

  it("never holds an answer for trust, and withholds one the check holds", () => {
    expect(decideAdmission(facts({ kind: "answer", answer }, { trusted: false }))).toEqual({ kind: "answer", answer });
    const held = assessment({ decision: "hold" });
    expect(
      decideAdmission(facts({ kind: "answer", answer }, { firewall: { state: "checked", assessment: held } })),
    ).toEqual({ kind: "withhold", answer, withheld: { kind: "withheld", checkId: "chk-1", reason: "held" } });
  });

  it("queues a close until its result is derived, consumes one with no result, then judges the result", () => {
    expect(
      decideAdmission(facts({ kind: "close", close, outcome: undefined }, { firewall: { state: "pending" } })),
    ).toEqual({
      kind: "queue",
    });
    const consumed = { kind: "consume" as const, reason: "not held here" };
    expect(decideAdmission(facts({ kind: "close", close, outcome: consumed }, { trusted: false }))).toEqual({
      kind: "consume",
      reason: "not held here",
    });
    const derived = { kind: "result" as const, item: result, guidance: undefined };
    expect(decideAdmission(facts({ kind: "close", close, outcome: derived }, { trusted: false }))).toMatchObject({
      kind: "hold",
      source: "trust",
    });
  });

  it("admits a result with the guidance of its answers' checks, not its own check's", () => {
    const derived = { kind: "result" as const, item: result, guidance: undefined };
    const advised = assessment({ guidance });
    expect(
      decideAdmission(
        facts({ kind: "close", close, outcome: derived }, { firewall: { state: "checked", assessment: advised } }),
      ),
    ).toEqual({ kind: "admit", item: result });
  });
});

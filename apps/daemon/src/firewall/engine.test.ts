import { describe, expect, it } from "vitest";
import { compilePolicy, refusalOf } from "./engine.js";
import { readJudgeAnswer } from "./judge-client.js";
import { violationProbability } from "./model.middleware.js";
import { readPolicy } from "./policy.schema.js";
import { InboundClock } from "./rate.middleware.js";
import type { Subject } from "./subjects.js";

function compile(document: unknown, now = () => 1_000_000, clock = new InboundClock()) {
  const read = readPolicy(document);
  if (!read.ok) throw new Error(JSON.stringify(read.issues));
  return compilePolicy(1, read.policy, { apiKeys: new Map(), clock, now });
}

const subject = (extra: Partial<Subject> = {}): Subject => ({
  id: "pst_x",
  kind: "multicast",
  sender: "agent:carol",
  recipients: ["agent:bob"],
  conversation: "agent:carol",
  text: "hello",
  ...extra,
});

describe("the rules middleware", () => {
  const policy = compile({
    mode: "enforce",
    middlewares: [
      {
        id: "house",
        kind: "rules",
        rules: [
          {
            id: "groups",
            direction: "inbound",
            match: { to: ["group:*"], kinds: ["multicast"] },
            decision: "allow",
            expectation: "permitted",
            instruction: "Group chatter: answer only if asked.",
          },
          {
            id: "secrets",
            direction: "outbound",
            match: { text: { pattern: "password", flags: "i" } },
            decision: "refuse",
            instruction: "No credentials.",
          },
        ],
      },
    ],
  });

  it("matches every condition present: conversation, kind and text", async () => {
    const inGroup = await policy.assess("inbound", subject({ conversation: "group:bob,carol,dave" }));
    expect(inGroup.decision).toBe("allow");
    expect(inGroup.guidance?.instructions).toEqual([
      {
        middlewareId: "house",
        ruleId: "groups",
        expectation: "permitted",
        subjects: ["pst_x"],
        instruction: "Group chatter: answer only if asked.",
      },
    ]);
    expect((await policy.assess("inbound", subject())).guidance).toBeUndefined();
    expect(
      (await policy.assess("inbound", subject({ conversation: "group:bob,carol,dave", kind: "collectiveRequest" })))
        .guidance,
    ).toBeUndefined();
  });

  it("refuses outbound only, with the rule's instruction as feedback", async () => {
    const refused = await policy.assess("outbound", subject({ text: "my PASSWORD is x" }));
    expect([refused.decision, refusalOf(refused), refused.feedback]).toEqual(["refuse", "refused", "No credentials."]);
    expect((await policy.assess("inbound", subject({ text: "my password" }))).decision).toBe("allow");
  });
});

describe("the rate middleware", () => {
  it("holds a sender past its window's budget, per sender", async () => {
    const policy = compile({
      mode: "enforce",
      middlewares: [
        {
          id: "storm",
          kind: "rate",
          rules: [
            {
              id: "per-peer",
              direction: "inbound",
              per: "sender",
              max: 2,
              windowSeconds: 60,
              decision: "hold",
              instruction: "Too fast.",
            },
          ],
        },
      ],
    });
    const decisions = [];
    for (let i = 0; i < 3; i++) decisions.push((await policy.assess("inbound", subject())).decision);
    decisions.push((await policy.assess("inbound", subject({ sender: "agent:dave" }))).decision);
    expect(decisions).toEqual(["allow", "allow", "hold", "allow"]);
  });

  it("counts only replies in its loop guard, and forgets them after the window", async () => {
    let now = 0;
    const clock = new InboundClock();
    const policy = compile(
      {
        mode: "enforce",
        middlewares: [
          {
            id: "loops",
            kind: "rate",
            rules: [
              {
                id: "loop",
                direction: "outbound",
                per: "loop",
                max: 2,
                windowSeconds: 600,
                replySeconds: 30,
                decision: "refuse",
                instruction: "You and your peers are answering each other in a loop.",
              },
            ],
          },
        ],
      },
      () => now,
      clock,
    );
    const reply = async () => {
      clock.arrived(now);
      now += 5_000;
      return (await policy.assess("outbound", subject())).decision;
    };
    expect([await reply(), await reply(), await reply()]).toEqual(["allow", "allow", "refuse"]);
    now += 60_000; // not a reply: nothing arrived in the last 30 s
    expect((await policy.assess("outbound", subject())).decision).toBe("allow");
    now += 600_000;
    expect(await reply()).toBe("allow");
  });
});

describe("the judge's answer", () => {
  it("reads {choice, probability}, also inside a code fence", () => {
    const body = (content: string) => ({ choices: [{ message: { content } }] });
    expect(readJudgeAnswer(body('{"choice":"yes","probability":0.7}'), ["no", "yes"])).toEqual({
      choice: "yes",
      probability: 0.7,
    });
    expect(readJudgeAnswer(body('```json\n{"choice":"no","probability":1}\n```'), ["no", "yes"])).toEqual({
      choice: "no",
      probability: 1,
    });
  });

  it("reads a bare choice's probability from logprobs when offered", () => {
    const body = {
      choices: [{ message: { content: "yes" }, logprobs: { content: [{ token: "yes", logprob: Math.log(0.8) }] } }],
    };
    expect(readJudgeAnswer(body, ["no", "yes"]).probability).toBeCloseTo(0.8);
  });

  it("refuses an answer outside the choices or without a probability", () => {
    const body = (content: string) => ({ choices: [{ message: { content } }] });
    expect(() => readJudgeAnswer(body('{"choice":"maybe","probability":0.5}'), ["no", "yes"])).toThrow(/not one of/);
    expect(() => readJudgeAnswer(body('{"choice":"yes","probability":2}'), ["no", "yes"])).toThrow(/0 to 1/);
    expect(() => readJudgeAnswer(body("yes"), ["no", "yes"])).toThrow(/without a probability/);
  });

  it("turns the judge's probability into the violating choice's probability", () => {
    expect(violationProbability({ choice: "yes", probability: 0.9 }, "yes", ["no", "yes"])).toBe(0.9);
    expect(violationProbability({ choice: "no", probability: 0.9 }, "yes", ["no", "yes"])).toBeCloseTo(0.1);
  });
});

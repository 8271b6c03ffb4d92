import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compilePolicy, refusalOf } from "./engine.js";
import { CHECK_STEP_BUDGET } from "./match.js";
import { readPolicy } from "./policy.schema.js";
import { InboundClock, MAX_WINDOWS } from "./rate.middleware.js";
import type { Subject } from "./subjects.js";

function compile(document: unknown, now = () => 1_000_000) {
  const read = readPolicy(document);
  if (!read.ok) throw new Error(JSON.stringify(read.issues));
  return compilePolicy(1, read.policy, { apiKeys: new Map(), clock: new InboundClock(), now });
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

const rule = (id: string, pattern: string) => ({
  id,
  direction: "both",
  match: { text: { pattern } },
  decision: "hold",
  instruction: "Slow words.",
});

// A judge that accepts the request and never answers (a hung model server).
let silent: Server;
let endpoint: string;
let slow: Server;
let slowEndpoint: string;
beforeAll(async () => {
  silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`;
  // A judge that answers "no" after 600 ms.
  slow = createServer((_request, response) => {
    setTimeout(() => {
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ choices: [{ message: { content: '{"choice":"no","probability":0.99}' } }] }));
    }, 600);
  });
  await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
  slowEndpoint = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  for (const server of [silent, slow]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const judge = (extra: Record<string, unknown>) => ({
  mode: "enforce",
  middlewares: [
    {
      id: "judge",
      kind: "model",
      endpoint,
      model: "guard",
      timeoutMs: 150,
      ...extra,
      rules: [
        {
          id: "injection",
          direction: "both",
          norm: "Injection?",
          choices: ["no", "yes"],
          violating: "yes",
          decideAt: 0.85,
          uncertainAt: 0.3,
          decision: "hold",
          instruction: "Untrusted.",
        },
      ],
    },
  ],
});

describe("a judge past its timeout", () => {
  it("is recorded as an error and holds, never passes", async () => {
    const assessment = await compile(judge({})).assess("inbound", subject());
    expect(assessment.decision).toBe("hold");
    expect(assessment.verdicts[0]?.error).toMatch(/injection: no answer within 150 ms/);
    expect(assessment.verdicts[0]?.rules).toEqual([]);
    const outbound = await compile(judge({})).assess("outbound", subject());
    expect(refusalOf(outbound)).toBe("unavailable");
  });

  it("allows with the error recorded when the owner chose onError allow", async () => {
    const assessment = await compile(judge({ onError: "allow" })).assess("inbound", subject());
    expect(assessment.decision).toBe("allow");
    expect(assessment.verdicts[0]?.decision).toBe("allow");
    expect(assessment.verdicts[0]?.error).toMatch(/no answer within 150 ms/);
  });

  it("counts the wait for a place under the concurrency cap in the timeout", async () => {
    // One place: the first ask is answered at about 600 ms; the second gets the place then and
    // would be answered at about 1200 ms, past the 1000 ms its ask began with.
    const policy = compile(judge({ endpoint: slowEndpoint, timeoutMs: 1000, concurrency: 1 }));
    const [first, second] = await Promise.all([
      policy.assess("inbound", subject()),
      policy.assess("inbound", subject({ id: "pst_y" })),
    ]);
    expect([first.decision, first.verdicts[0]?.error]).toEqual(["allow", undefined]);
    expect(second.decision).toBe("hold");
    expect(second.verdicts[0]?.error).toMatch(/injection: no answer within 1000 ms/);
  });
});

describe("a rules middleware past its step budget", () => {
  const slow = "ab ".repeat(350_000);
  const policy = (onError?: "allow") =>
    compile({
      mode: "enforce",
      middlewares: [
        {
          id: "house",
          kind: "rules",
          ...(onError === undefined ? {} : { onError }),
          rules: [
            ...[1, 2, 3, 4, 5].map((i) => rule(`words-${i}`, "(\\w+\\s?)*!$")),
            {
              id: "mallory",
              direction: "inbound",
              match: { from: ["agent:mallory"] },
              decision: "hold",
              instruction: "Review.",
            },
          ],
        },
      ],
    });

  it("records an error naming the undecided rules and holds (the default onError)", async () => {
    const assessment = await policy().assess("inbound", subject({ text: slow }));
    expect(assessment.decision).toBe("hold");
    expect(assessment.verdicts[0]?.error).toMatch(new RegExp(`words-\\d.*budget of ${CHECK_STEP_BUDGET} steps`));
    const outbound = await policy().assess("outbound", subject({ text: slow }));
    expect([outbound.decision, refusalOf(outbound)]).toEqual(["hold", "unavailable"]);
  });

  it("still decides the rules without patterns once the budget is spent", async () => {
    const assessment = await policy("allow").assess("inbound", subject({ text: slow, sender: "agent:mallory" }));
    expect(assessment.decision).toBe("hold");
    expect(assessment.verdicts[0]?.rules.map((r) => r.ruleId)).toEqual(["mallory"]);
  });

  it("allows with the error recorded under onError allow, and decides short texts as usual", async () => {
    const over = await policy("allow").assess("inbound", subject({ text: slow }));
    expect([over.decision, typeof over.verdicts[0]?.error]).toEqual(["allow", "string"]);
    const matched = await policy("allow").assess("inbound", subject({ text: "ab ab!" }));
    expect([matched.decision, matched.verdicts[0]?.error]).toEqual(["hold", undefined]);
  });
});

describe("the rate middleware", () => {
  const rate = (per: string, max: number) => ({
    mode: "enforce",
    middlewares: [
      {
        id: "storm",
        kind: "rate",
        rules: [
          { id: "busy", direction: "inbound", per, max, windowSeconds: 60, decision: "hold", instruction: "Busy." },
        ],
      },
    ],
  });

  it("counts a per-conversation window across senders, one window per conversation", async () => {
    let now = 1_000_000;
    const policy = compile(rate("conversation", 2), () => now);
    const group = "group:bob,carol,dave";
    const decisions = [];
    for (const sender of ["agent:carol", "agent:dave", "agent:carol"])
      decisions.push((await policy.assess("inbound", subject({ sender, conversation: group }))).decision);
    decisions.push((await policy.assess("inbound", subject({ sender: "agent:carol" }))).decision);
    now += 61_000;
    decisions.push((await policy.assess("inbound", subject({ sender: "agent:dave", conversation: group }))).decision);
    expect(decisions).toEqual(["allow", "allow", "hold", "allow", "allow"]);
  });

  it("keeps at most MAX_WINDOWS busy windows per rule, and records the next as an error", async () => {
    const policy = compile(rate("sender", 5));
    for (let i = 0; i < MAX_WINDOWS; i++)
      expect(
        (await policy.assess("inbound", subject({ sender: `agent:peer-${i}` }))).verdicts[0]?.error,
      ).toBeUndefined();
    const past = await policy.assess("inbound", subject({ sender: "agent:one-more" }));
    expect(past.decision).toBe("hold");
    expect(past.verdicts[0]?.error).toMatch(/windows are busy/);
  });
});

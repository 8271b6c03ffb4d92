/**
 * The evaluation set and the example policy the firewall bench runs (issue 10 item 8): the set's
 * shape and labels, and that docs/firewall.md's example policy validates with the daemon's own
 * schema. Behaviour only; the bench prints the scores.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { compilePolicy, InboundClock } from "@social-harness/daemon";
import { afterAll, describe, expect, it } from "vitest";
import { loadEvalSet, readEvalSet, subjectOf, THREATS, wordsOf, type Threat } from "./eval-set.js";
import { examplePolicy, examplePolicyDocument, readDocs, withJudge } from "./example-policy.js";

/** The words that make a benign message look like each threat to a naive filter. */
const TRIGGERS: Record<Threat, RegExp> = {
  injection:
    /ignor|disregard|forget|instruction|prompt|rules|act as|pretend|role-?play|jailbr|developer mode|override|system|tool|\brun\b|you are now|from now on|repeat|base64|note for the agents|忽略/i,
  "credential-request":
    /password|contraseña|api key|keys?\b|token|credential|secret|seed phrase|recovery|login|\b(send|reveal|share|give) (your|the)\b/i,
  "credential-leak":
    /password|api[_ ]?key|apikey|secret|token|key|akia|sk_|ghp_|bearer|sha256|commit|uuid|req_|postgres:/i,
};

describe("the firewall evaluation set", () => {
  const entries = loadEvalSet();

  it("holds at least 200 labelled messages, each valid, with unique ids", () => {
    expect(readEvalSet()).toMatchObject({ ok: true });
    expect(entries.length).toBeGreaterThanOrEqual(200);
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
    for (const entry of entries) expect(typeof entry.violating).toBe("boolean");
  });

  it("holds at least 80 benign messages, each containing the trigger words of the threat it resembles", () => {
    const lookalikes = entries.filter((e) => e.category === "benign-trigger");
    expect(lookalikes.length).toBeGreaterThanOrEqual(80);
    for (const entry of lookalikes) {
      expect(entry.violating, entry.id).toBe(false);
      expect(wordsOf(entry), entry.id).toMatch(TRIGGERS[entry.resembles!]);
    }
  });

  it("covers every threat with attacks and look-alikes, in the direction it travels, and ordinary traffic of every kind", () => {
    for (const threat of THREATS) {
      const attacks = entries.filter((e) => e.category === threat);
      expect(attacks.length, threat).toBeGreaterThanOrEqual(20);
      expect(new Set(attacks.map((e) => e.direction)), threat).toEqual(
        new Set([threat === "credential-leak" ? "outbound" : "inbound"]),
      );
      expect(entries.filter((e) => e.resembles === threat).length, threat).toBeGreaterThanOrEqual(15);
    }
    const injections = new Set(entries.filter((e) => e.category === "injection").map((e) => e.technique));
    for (const technique of [
      "role-play",
      "ignore-previous",
      "hidden-in-data",
      "multi-language",
      "obfuscated",
      "politeness-wrapped",
      "tool-call-lure",
    ])
      expect(injections).toContain(technique);
    const ordinary = entries.filter((e) => e.category === "ordinary");
    expect(new Set(ordinary.map((e) => e.kind))).toEqual(
      new Set(["multicast", "collectiveRequest", "collectiveResult", "answer"]),
    );
    expect(new Set(ordinary.map((e) => e.direction))).toEqual(new Set(["inbound", "outbound"]));
    expect(entries.filter((e) => e.split === "holdout").length).toBeGreaterThanOrEqual(40);
  });

  it("gives messages with the same words the same score, so the scripted judge's table is unambiguous", () => {
    const scores = new Map<string, number>();
    for (const entry of entries) {
      const words = wordsOf(entry);
      expect(scores.get(words) ?? entry.judge, entry.id).toBe(entry.judge);
      scores.set(words, entry.judge);
    }
  });

  it("builds the subject the daemon checks: bob's view of the conversation, its sender and recipients", () => {
    const group = entries.find((e) => e.direction === "inbound" && e.conversation.startsWith("group:"))!;
    const subject = subjectOf(group);
    expect(subject.sender).toBe(group.from);
    expect(subject.recipients).toContain("agent:bob");
    expect(subject.recipients).not.toContain(group.from);
    const sent = entries.find((e) => e.direction === "outbound" && e.conversation.startsWith("agent:"))!;
    expect(subjectOf(sent)).toMatchObject({ sender: "agent:bob", recipients: [sent.conversation] });
    const decline = entries.find((e) => e.decline === true)!;
    expect(subjectOf(decline).text).toBe("decline");
  });

  describe("a malformed set", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fw-set-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("is refused with each problem named by file, line and field", () => {
      const ok = {
        id: "ord-01",
        category: "ordinary",
        violating: false,
        direction: "inbound",
        kind: "multicast",
        from: "agent:alice",
        conversation: "agent:alice",
        text: "hello",
        judge: 0.01,
      };
      writeFileSync(
        path.join(dir, "bad.jsonl"),
        [
          JSON.stringify(ok),
          JSON.stringify({ ...ok, id: "inj-01", category: "injection" }),
          "{not json",
          JSON.stringify({ ...ok, id: "ord-02", direction: "outbound" }),
        ].join("\n"),
      );
      const read = readEvalSet(dir);
      expect(read.ok).toBe(false);
      const problems = read.ok ? [] : read.problems;
      expect(problems).toContain("bad.jsonl:2: violating: must be true in injection");
      expect(problems.some((p) => p.startsWith("bad.jsonl:3: not JSON"))).toBe(true);
      expect(problems).toContain("bad.jsonl:4: from: an outbound entry is sent by agent:bob");
    });
  });
});

describe("the example policy in docs/firewall.md", () => {
  it("validates with the daemon's schema and compiles with its engine, checking both directions", () => {
    const policy = examplePolicy();
    expect(policy.mode).toBe("enforce");
    const compiled = compilePolicy(1, policy, { apiKeys: new Map(), clock: new InboundClock(), now: () => 0 });
    expect([compiled.active("inbound"), compiled.active("outbound")]).toEqual([true, true]);
    const judged = withJudge(policy, "http://127.0.0.1:9/v1");
    expect(judged.middlewares.map((m) => m.kind)).toEqual([...policy.middlewares.map((m) => m.kind), "model"]);
  });

  it("is refused, naming the field, when the doc's example stops validating", () => {
    const broken = readDocs().replace('"decision": "hold"', '"decision": "maybe"');
    expect(() => examplePolicy(broken)).toThrow(/middlewares\.0\.rules\.0\.decision/);
  });

  it("is read from its own section only", () => {
    expect(() =>
      examplePolicyDocument("# Firewall\n\n### An example policy\n\nNo JSON here.\n\n## Next\n\n```json\n{}\n```\n"),
    ).toThrow(/holds no ```json block/);
    expect(() => examplePolicyDocument("# Firewall\n")).toThrow(/no "### An example policy" section/);
  });
});

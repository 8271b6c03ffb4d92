/**
 * Texts designed to be slow (issue 23): bob's owner writes the naive patterns people write
 * (`^(a+)+$`, `(a|aa)+$`, `^(\w+\s?)*$`, an ambiguous run of combining marks, a nested-bracket
 * pattern over gather answers), and alice sends the inputs that make a backtracking engine take
 * exponential time, near-matches, a deeply nested JSON answer and a run of combining marks.
 * Every message is decided (delivered or held, with an audit row) while bob's read_inbox stays
 * within 3× its own unloaded median, sampled throughout. A 1 MiB text of near-matches is decided
 * too; its ratio is not asserted, since ingesting any 1 MiB record (whatever the policy) costs
 * the event loop more than that on this machine (docs/performance.md, issue 23).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, tool } from "../harness/mcp.js";
import { Network, waitForKind, type InboxItem } from "../harness/network.js";
import { ownerClient } from "../harness/owner.js";
import { setPolicy } from "../firewall/policies.js";

const NOTE = { type: "object", properties: { note: { type: "string" } }, required: ["note"] };
const hold = (id: string, pattern: string, extra: Record<string, unknown> = {}) => ({
  id,
  direction: "inbound",
  match: { text: { pattern } },
  decision: "hold",
  instruction: `The owner's ${id} rule.`,
  ...extra,
});

/** The texts alice sends, each beside the pattern that would take a backtracking engine years. */
const SLOW_TEXTS = [
  `${"a".repeat(28)}!`, // the reproduction: ^(a+)+$
  `${"a".repeat(5_000)}!`, // (a|aa)+$
  `${"hello world ".repeat(2_000)}!`, // ^(\w+\s?)*$
  `${"passwor apikex ".repeat(4_000)}.`, // near-matches of api[_ -]?key|password
  `a${"\u0301".repeat(10_000)}!`, // combining marks: ^(a|\u0301|a\u0301)+$
  "a".repeat(20_000), // matches ^(a+)+$: held
];
const HELD = SLOW_TEXTS[5];
const ROUNDS = 3;
const SENT = Array.from({ length: ROUNDS }, () => SLOW_TEXTS).flat();
/** About 1 MiB of near-matches (the record limit is 1 MiB of content). */
const MEBIBYTE_OF_NEAR_MATCHES = `${"passwor apikex ".repeat(69_000)}.`;

/** Bob's policy; `control` swaps every pattern for a literal no text contains. */
const naivePolicy = (pattern: (p: string) => string) => ({
  mode: "enforce",
  middlewares: [
    {
      id: "naive",
      kind: "rules",
      rules: [
        hold("nested-a", pattern("^(a+)+$")),
        hold("a-or-aa", pattern("(a|aa)+$")),
        hold("words", pattern("^(\\w+\\s?)*$")),
        hold("credentials", "api[_ -]?key|password", {
          match: { text: { pattern: pattern("api[_ -]?key|password"), flags: "i" } },
        }),
        hold("marks", pattern("^(a|\\u0301|a\\u0301)+$")),
        hold("brackets", '^\\{"note":"(\\[+)+$', {
          match: { kinds: ["answer"], text: { pattern: pattern('^\\{"note":"(\\[+)+$') } },
        }),
      ],
    },
  ],
});
const CONTROL = "qqqqq";

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * "Throughout": the median of every run of 10 consecutive samples, and of them all. A burst of
 * ordinary messages already moves read_inbox on a shared 2-core machine, so the bound is 3× the
 * larger of the unloaded median and the same traffic's median against harmless patterns; a window
 * may also reach 3× the harmless traffic's worst window.
 */
function judged(unloaded: number[], control: number[], loaded: number[]) {
  const windowsOf = (samples: number[]) => {
    const windows: number[] = [];
    for (let at = 0; at + 10 <= samples.length; at += 10) windows.push(median(samples.slice(at, at + 10)));
    return windows;
  };
  const seen = {
    unloaded: median(unloaded),
    control: median(control),
    controlWorstWindow: Math.max(...windowsOf(control)),
    loaded: median(loaded),
    worstWindow: Math.max(...windowsOf(loaded)),
  };
  const bound = 3 * Math.max(seen.unloaded, seen.control);
  const within = seen.loaded <= bound && seen.worstWindow <= Math.max(bound, 3 * seen.controlWorstWindow);
  return { ...seen, within };
}

describe("texts designed to be slow", () => {
  let net: Network;
  const bob = () => net.agent("bob");
  const owner = () => ownerClient(bob().daemon);

  /** What bob's host read (and then acknowledged), by postId or collective id. */
  const delivered = new Set<string>();

  /**
   * One read_inbox, timed; what it returned is acknowledged afterwards, so the inbox stays short.
   * A read that returned items also bound their delivery tokens and carried their words, work an
   * empty unloaded read never does, so it is not a sample (undefined).
   */
  async function readInboxMs(): Promise<number | undefined> {
    const started = performance.now();
    const page = (await tool(bob().mcp.client, "read_inbox", {})) as { items: InboxItem[] };
    const elapsed = page.items.length === 0 ? performance.now() - started : undefined;
    for (const entry of page.items) {
      delivered.add((entry.item.message?.postId ?? entry.item.id) as string);
      await tool(bob().mcp.client, "acknowledge_delivery", { deliveryToken: entry.deliveryToken });
    }
    return elapsed;
  }

  async function allChecks() {
    const checks = [];
    let cursor: number | undefined;
    do {
      const page = await owner().firewall.checks.query(cursor === undefined ? {} : { cursor });
      checks.push(...page.checks);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return checks;
  }

  beforeAll(async () => {
    net = await Network.start(["alice", "bob"]);
  }, 60_000);
  afterAll(() => net?.close());

  /** read_inbox samples while alice sends every slow text (paced) and, if asked, answers bob's gather. */
  async function underTraffic(answer: string | undefined): Promise<number[]> {
    const samples: number[] = [];
    let sending = true;
    const sampler = (async () => {
      while (sending) {
        const sample = await readInboxMs();
        if (sample !== undefined) samples.push(sample);
      }
    })();
    const target = delivered.size + (await owner().holds.list.query()).holds.length + SENT.length;
    try {
      // Paced, so what the samples see is each check's hold on the loop, not ingest throughput.
      for (const text of SENT) {
        await net.send("alice", "agent:bob", text);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      if (answer !== undefined) await net.send("alice", "agent:bob", answer);
      // Polled lightly: the audit carries every text, and reading it is the owner's load, not the peer's.
      await eventually(
        async () => {
          await new Promise((resolve) => setTimeout(resolve, 500));
          const { holds } = await owner().holds.list.query();
          return delivered.size + holds.length >= target + (answer === undefined ? 0 : 1) ? true : undefined;
        },
        120_000,
        "every slow text to be decided",
      );
    } finally {
      sending = false;
      await sampler;
    }
    return samples;
  }

  it("decides every slow text while read_inbox stays within 3× its unloaded (or harmless-traffic) median", async () => {
    for (let i = 0; i < 5; i++) await readInboxMs();
    const unloaded: number[] = [];
    for (let i = 0; i < 40; i++) unloaded.push((await readInboxMs())!);

    /**
     * The control (the same traffic against patterns that cannot be slow), then the naive patterns;
     * `answer` runs once they are set and returns what alice answers meanwhile, if anything.
     */
    const harmlessThenNaive = async (answer?: () => Promise<string>) => {
      await setPolicy(
        bob().daemon,
        naivePolicy(() => CONTROL),
      );
      const control = await underTraffic(undefined);
      const revision = await setPolicy(
        bob().daemon,
        naivePolicy((pattern) => pattern),
      );
      const loaded = await underTraffic(await answer?.());
      expect(loaded.length).toBeGreaterThanOrEqual(20);
      return { control, revision, loaded };
    };

    let operationId = "";
    const { control, revision, loaded } = await harmlessThenNaive(async () => {
      ({ operationId } = (await tool(bob().mcp.client, "send_message", {
        to: "agent:alice",
        text: JSON.stringify({ gather: "Any notes?", deadline: 120, requestedSchema: NOTE }),
      })) as { operationId: string });
      await waitForKind(net.agent("alice"), "collectiveRequest");
      const deep = `${"[".repeat(20_000)}${"]".repeat(20_000)}`;
      return JSON.stringify({ action: "accept", content: { note: deep } });
    });
    expect(delivered.has(operationId)).toBe(true);
    for (let i = 0; i < 40; i++) unloaded.push((await readInboxMs())!);

    let seen = judged(unloaded, control, loaded);
    console.info(`read_inbox medians (ms): ${JSON.stringify(seen)}`);
    if (!seen.within) {
      // The machine is shared: another test file's burst of work can lift one window of one pass,
      // while slow checks lift every pass. So one pass over the bound is measured again, the
      // control and then the naive patterns, and that second pair is judged.
      const again = await harmlessThenNaive();
      seen = judged(unloaded, again.control, again.loaded);
      console.info(`read_inbox medians, measured again (ms): ${JSON.stringify(seen)}`);
    }
    expect(seen).toMatchObject({ within: true });

    // Each message is decided: delivered to bob's host, or held, with an audit row.
    const checks = await allChecks();
    const { holds } = await owner().holds.list.query();
    const inInbox = delivered;
    const held = new Set(holds.map((h) => (h.item as { message?: { postId?: string } }).message?.postId));
    const decided = checks
      .filter((c) => c.subjects[0]?.kind === "multicast" && c.revision === revision)
      .map((c) => {
        const postId = c.subjects[0]!.id;
        const where = inInbox.has(postId) ? "admitted" : held.has(postId) ? "held" : "nowhere";
        return {
          text: SLOW_TEXTS.indexOf(c.subjects[0]!.text),
          outcome: c.outcome,
          where,
          error: c.middlewares[0]?.error,
        };
      })
      .sort((x, y) => x.text - y.text);
    expect(decided).toEqual(
      SENT.map((text) => SLOW_TEXTS.indexOf(text))
        .sort((x, y) => x - y)
        .map((text) => {
          const outcome = SLOW_TEXTS[text] === HELD ? "held" : "admitted";
          return { text, outcome, where: outcome, error: undefined };
        }),
    );
    const answer = checks.find((c) => c.subjects[0]?.id === operationId && c.subjects[0]?.kind === "answer");
    expect(answer).toMatchObject({ decision: "allow", outcome: "admitted" });
    console.info(
      `check latencies (ms): ${checks
        .filter((c) => c.revision === revision)
        .map((c) => Math.round(c.latencyUs / 1000))
        .join(", ")}`,
    );
  }, 300_000);

  it("decides 1 MiB of near-matches within the check's budget", async () => {
    await net.send("alice", "agent:bob", MEBIBYTE_OF_NEAR_MATCHES);
    const check = await eventually(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 500));
        return (await allChecks()).find((c) => c.subjects[0]?.text === MEBIBYTE_OF_NEAR_MATCHES);
      },
      120_000,
      "the 1 MiB text to be decided",
    );
    expect(check).toMatchObject({ decision: "allow", outcome: "admitted" });
    expect(check.middlewares[0]?.error).toBeUndefined();
    await eventually(async () => ((await readInboxMs(), delivered.has(check.subjects[0]!.id)) ? true : undefined));
    console.info(`1 MiB of near-matches: checked in ${Math.round(check.latencyUs / 1000)} ms`);
  }, 180_000);
});

import { encodeRecord, mintId, readRecord, recordHashOf } from "@social-harness/protocol";
import { describe, expect, it } from "vitest";
import type { IntentRow } from "./intents.store.js";
import { ProposalLanes, type Signed } from "./proposal-lanes.js";
import type { ProposalAnswer, RouterAnswer } from "./router-port.js";

const CONV = "direct:alice,bob";
const IDS = Array.from({ length: 9 }, () => mintId("post"));
const name = (postId: string) => `p${IDS.indexOf(postId)}`;
const intent = (n: number): IntentRow => ({ postId: IDS[n]!, conv: CONV, content: new Uint8Array(), createdAt: n });

/** A router that orders one conversation: a proposal naming the head is certified, others see the head. */
function router(options: { refuse?: (postId: string) => boolean; interject?: (count: number) => boolean } = {}) {
  let head: string | null = null;
  let proposals = 0;
  let maxOutstanding = 0;
  let outstanding = 0;
  const certified: string[] = [];
  const propose = async (signed: Signed): Promise<RouterAnswer<ProposalAnswer>> => {
    outstanding++;
    maxOutstanding = Math.max(maxOutstanding, outstanding);
    await new Promise((r) => setTimeout(r, 1));
    outstanding--;
    proposals++;
    const read = readRecord(signed.bytes);
    if (!read.ok) throw new Error(read.reason);
    // Another author posts in the conversation now and then.
    if (options.interject?.(proposals) === true) head = recordHashOf(new Uint8Array([proposals]));
    if (read.record.prev !== head) return { ok: true, value: { t: "head-moved", id: 1, conv: CONV, head } };
    if (options.refuse?.(name(read.record.postId)) === true)
      return { ok: true, value: { t: "refused", id: 1, reason: "content-invalid", detail: "no" } };
    head = recordHashOf(signed.bytes);
    certified.push(name(read.record.postId));
    return {
      ok: true,
      value: { t: "certified", id: 1, conv: CONV, seq: certified.length, record: head, certificate: new Uint8Array() },
    };
  };
  return { propose, certified, stats: () => ({ proposals, maxOutstanding }) };
}

function lanesFor(r: ReturnType<typeof router>) {
  return new ProposalLanes<string>(lanesDeps(r));
}

function lanesDeps(r: ReturnType<typeof router>): ConstructorParameters<typeof ProposalLanes<string>>[0] {
  return {
    head: () => Promise.resolve(null),
    sign: (i, prev): Signed => ({
      bytes: encodeRecord({
        kind: "post",
        conv: i.conv,
        prev,
        author: "alice",
        postId: i.postId,
        at: i.createdAt,
        content: [],
      }),
      signature: new Uint8Array(64),
    }),
    propose: r.propose,
    settle: (i, _signed, answer) => {
      if (answer.t === "refused") return Promise.reject(new Error(`refused ${name(i.postId)}`));
      return Promise.resolve(name(i.postId));
    },
    pending: (why) => new Error(`pending: ${why}`),
  };
}

describe("pipelined proposals", () => {
  it("sends a conversation's proposals without waiting, as one chain in binding order", async () => {
    const r = router();
    const lanes = lanesFor(r);
    const results = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((n) => lanes.deliver(intent(n))));
    expect(results).toEqual(["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"]);
    expect(r.certified).toEqual(results);
    expect(r.stats()).toEqual({ proposals: 8, maxOutstanding: 8 });
  });

  it("starts again from the moved head, keeping the binding order of what was not certified", async () => {
    const r = router({ interject: (count) => count === 3 || count === 7 });
    const lanes = lanesFor(r);
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => lanes.deliver(intent(n))));
    expect(results).toEqual(["p1", "p2", "p3", "p4", "p5", "p6"]);
    expect(r.certified).toEqual(["p1", "p2", "p3", "p4", "p5", "p6"]);
  });

  it("fails a refused proposal alone; the ones behind it are chained again and certified", async () => {
    const r = router({ refuse: (postId) => postId === "p2" });
    const lanes = lanesFor(r);
    const outcomes = await Promise.allSettled([1, 2, 3, 4].map((n) => lanes.deliver(intent(n))));
    expect(outcomes.map((o) => (o.status === "fulfilled" ? o.value : (o.reason as Error).message))).toEqual([
      "p1",
      "refused p2",
      "p3",
      "p4",
    ]);
    expect(r.certified).toEqual(["p1", "p3", "p4"]);
  });

  it("settles each answer without waiting for the commit of the one before, and settled() waits for the commits", async () => {
    const r = router();
    // Each settle's commit is held back until released: the lane must not wait for it.
    const commits: (() => void)[] = [];
    const settledNames: string[] = [];
    const lanes = new ProposalLanes<string>({
      ...lanesDeps(r),
      settle: (i) => {
        settledNames.push(name(i.postId));
        return new Promise((resolve) => commits.push(() => resolve(name(i.postId))));
      },
    });
    const results = Promise.all([1, 2, 3, 4].map((n) => lanes.deliver(intent(n))));
    while (settledNames.length < 4) await new Promise((resolve) => setTimeout(resolve, 2));
    expect(settledNames).toEqual(["p1", "p2", "p3", "p4"]);
    let done = false;
    void lanes.settled(CONV)!.then(() => (done = true));
    for (const commit of commits.slice(0, 3)) commit();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(done).toBe(false);
    commits[3]!();
    expect(await results).toEqual(["p1", "p2", "p3", "p4"]);
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(done).toBe(true);
    expect(lanes.settled(CONV)).toBeUndefined();
  });
});

import type { RecordFrame, SigningKey } from "@social-harness/protocol";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { History } from "../history/history.service.js";
import type { Ingress } from "../ingress/ingress.service.js";
import { RecordFeed } from "./record-feed.js";
import type { RouterLink } from "./router-link.js";

const frame = (seq: number) => ({ t: "record", conv: "direct:alice,bob", seq }) as unknown as RecordFrame;
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A feed over an ingress that records each batch it is given and a link that records each frame sent. */
function feedWith(commit: () => Promise<void> = () => Promise.resolve()) {
  const batches: number[][] = [];
  const sent: unknown[] = [];
  const ingress = {
    async receiveAll(frames: readonly RecordFrame[]) {
      batches.push(frames.map((f) => f.seq));
      await commit();
      return frames.map(() => ({ kind: "stored" as const }));
    },
  };
  const feed = new RecordFeed({
    self: "bob",
    key: {} as SigningKey,
    link: { send: (f: unknown) => sent.push(f) } as unknown as RouterLink,
    ingress: ingress as unknown as Ingress,
    history: { cursors: () => Promise.resolve({}) } as unknown as History,
    posts: { resume: () => Promise.resolve(), ownSettled: () => undefined },
    durable: () => Promise.resolve(),
    log: pino({ level: "silent" }),
  });
  return { feed, batches, sent };
}

describe("the record feed", () => {
  it("commits the records of one socket read as one batch, and acknowledges each after it", async () => {
    const { feed, batches, sent } = feedWith();
    for (const seq of [1, 2, 3]) void feed.onRecord(frame(seq));
    await turn();
    await feed.idle();
    expect(batches).toEqual([[1, 2, 3]]);
    expect(sent).toEqual([1, 2, 3].map((seq) => ({ t: "ack", conv: "direct:alice,bob", seq })));
  });

  it("holds records that arrive while a batch commits for the next batch", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    const { feed, batches } = feedWith(() => (first ? ((first = false), held) : Promise.resolve()));
    void feed.onRecord(frame(1));
    await turn();
    void feed.onRecord(frame(2));
    void feed.onRecord(frame(3));
    await turn();
    expect(batches).toEqual([[1]]);
    release();
    await turn();
    await feed.idle();
    expect(batches).toEqual([[1], [2, 3]]);
  });
});
